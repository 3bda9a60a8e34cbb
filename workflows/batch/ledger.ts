/**
 * The batch's bookkeeping inside the workflow: jobs in flight, lines waiting for a key's cap,
 * retries waiting for their backoff, outcomes to write, counters. Plain data (it crosses
 * continue-as-new as JSON); every index gets exactly one outcome.
 */
import type { BatchCounts, BatchOutcomeStatus, BatchWorkflowInput, JobStatus } from '../../contracts';
import { FailureType } from '../../contracts/names';
import type { Completion, Cursor, Final, LineRef, RetryOrder, StepResult } from '../../activities/batch/types';

/** A remote job of one input that has not finished yet. */
export interface InFlight extends LineRef {
  id: string;
  /** Attempt (remote run) number, from 1; `/retry` keeps the id and adds one. */
  a: number;
  /** `/retry`s of this remote id so far (webhooks of older runs do not match). */
  r: number;
  ids: string[];
  t0: number;
  /** When to poll `/status` if nothing was heard. */
  p: number;
  /** Poll interval after the next poll. */
  pe: number;
  /** Cancel requested. */
  c?: boolean;
}

/** A finished job that will run again after its backoff. */
export interface Waiting extends LineRef {
  id: string;
  a: number;
  r: number;
  ids: string[];
  t0: number;
  /** Not before this time. */
  at: number;
  /** When its result on the service expires (then resubmit, not `/retry`). */
  until: number;
  last: { s: JobStatus; e?: string; et?: string; x?: number; d?: number };
}

/** Everything a batch carries from one run to the next. */
export interface LedgerData {
  cursor: Cursor;
  eof: boolean;
  inFlight: InFlight[];
  deferred: LineRef[];
  waiting: Waiting[];
  finals: Final[];
  counts: BatchCounts;
  /** Sum of executionTime of finished jobs (ms), for the spend estimate. */
  execMs: number;
  /** How many executions `execMs` adds up (absent in ledgers carried from before it was kept). */
  execN?: number;
  seq: number;
  lastErrors: { index: number; error: string }[];
}

export const emptyCounts = (): BatchCounts => ({
  read: 0,
  submitted: 0,
  inFlight: 0,
  waitingRetry: 0,
  done: 0,
  byStatus: {},
  retries: 0,
  rateLimited: 0,
  duplicatesAvoided: 0,
});

export function newLedger(): LedgerData {
  return {
    cursor: { line: 0, offset: 0 },
    eof: false,
    inFlight: [],
    deferred: [],
    waiting: [],
    finals: [],
    counts: emptyCounts(),
    execMs: 0,
    seq: 0,
    lastErrors: [],
  };
}

const RETENTION_MARGIN_MS = 60_000;
const MAX_POLL_MS = 300_000;

/** Applies what a step did to the ledger; returns nothing, mutates `d`. */
export function applyStep(
  d: LedgerData,
  res: StepResult,
  now: number,
  o: BatchWorkflowInput['options'],
  seq: number,
): void {
  const fallback = o.completion === 'poll' ? o.polling.initialIntervalMs : o.webhookFallbackMs;
  if (res.read) {
    d.counts.read += res.read.cursor.line - d.cursor.line;
    d.cursor = res.read.cursor;
    d.eof = res.read.eof;
  }
  const submittedIdx = new Set(res.submitted.map((s) => s.i));
  d.deferred = d.deferred
    .filter((l) => !submittedIdx.has(l.i))
    .concat(res.deferred.filter((l) => !d.deferred.some((x) => x.i === l.i)));
  for (const s of res.submitted) {
    d.inFlight.push({
      i: s.i,
      o: s.o,
      l: s.l,
      ...(s.k !== undefined ? { k: s.k } : {}),
      id: s.id,
      a: 1,
      r: 0,
      ids: [s.id],
      t0: now,
      p: now + fallback,
      pe: fallback,
    });
    d.counts.submitted++;
    if (s.dup) d.counts.duplicatesAvoided++;
  }
  for (const b of res.bad) finalize(d, { i: b.i, s: 'BAD_INPUT', a: 0, ids: [], e: b.reason, t1: now });
  for (const r of res.rejected) finalize(d, { i: r.i, s: 'FAILED', a: 0, ids: [], e: r.error, t1: now });
  for (const r of res.retried) {
    const w = d.waiting.find((x) => x.i === r.i);
    if (!w) continue;
    if (r.refused) {
      // `/retry` refused (expired, wrong state): resubmit at the next step.
      w.until = 0;
      continue;
    }
    d.waiting = d.waiting.filter((x) => x !== w);
    const ids = w.ids.includes(r.id) ? w.ids : [...w.ids, r.id];
    d.inFlight.push({
      i: w.i,
      o: w.o,
      l: w.l,
      ...(w.k !== undefined ? { k: w.k } : {}),
      id: r.id,
      a: w.a,
      r: r.how === 'retry' ? w.r + 1 : 0,
      ids,
      t0: w.t0,
      p: now + fallback,
      pe: fallback,
    });
    d.counts.retries++;
  }
  for (const id of res.cancelled) {
    const f = d.inFlight.find((x) => x.id === id);
    if (f) {
      f.c = true;
      f.p = Math.min(f.p, now + 2000);
    }
  }
  for (const c of res.completions) complete(d, c, now, o, seq);
  for (const id of res.expired) {
    const f = d.inFlight.find((x) => x.id === id);
    if (!f) continue;
    d.inFlight = d.inFlight.filter((x) => x !== f);
    finalize(d, {
      i: f.i,
      s: FailureType.JOB_EXPIRED,
      a: f.a,
      ids: f.ids,
      e: `job ${f.id} no longer exists on the service (its ttl expired)`,
      t0: f.t0,
      t1: now,
      o: f.o,
      l: f.l,
    });
  }
  // Jobs polled and found still running: poll again later, less often.
  const polled = new Set(res.polledRunning ?? []);
  for (const f of d.inFlight) {
    if (!polled.has(f.id)) continue;
    f.pe = Math.min(MAX_POLL_MS, Math.round(f.pe * (o.completion === 'poll' ? o.polling.backoffCoefficient : 2)));
    f.p = now + f.pe;
  }
  d.counts.rateLimited += res.rateLimited;
  syncCounts(d);
}

function complete(d: LedgerData, c: Completion, now: number, o: BatchWorkflowInput['options'], seq: number): void {
  const f = d.inFlight.find((x) => x.id === c.id && x.r === c.r) ?? d.inFlight.find((x) => x.id === c.id);
  if (!f) return; // already finished (a webhook and a poll both saw it)
  d.inFlight = d.inFlight.filter((x) => x !== f);
  if (c.x !== undefined) {
    d.execMs += c.x;
    d.execN = (d.execN ?? 0) + 1;
  }
  const retryable =
    (c.s === 'FAILED' || c.s === 'TIMED_OUT') &&
    o.retry.retryOn.includes(c.s) &&
    !neverRetried(c, o.retry) &&
    f.a < o.retry.maxAttempts &&
    !f.c;
  if (retryable) {
    const backoff = Math.min(o.retry.maxBackoffMs, o.retry.initialBackoffMs * o.retry.backoffCoefficient ** (f.a - 1));
    const last: Waiting['last'] = { s: c.s };
    if (c.e !== undefined) last.e = c.e;
    if (c.et !== undefined) last.et = c.et;
    d.waiting.push({
      i: f.i,
      o: f.o,
      l: f.l,
      ...(f.k !== undefined ? { k: f.k } : {}),
      id: f.id,
      a: f.a + 1,
      r: f.r,
      ids: f.ids,
      t0: f.t0,
      at: now + backoff,
      until: now + o.resultRetentionMs - RETENTION_MARGIN_MS,
      last,
    });
    return;
  }
  const fin: Final = {
    i: f.i,
    s: c.s as BatchOutcomeStatus,
    a: f.a,
    ids: f.ids,
    t0: f.t0,
    t1: now,
    c: { seq, n: c.n },
  };
  if (c.e !== undefined) fin.e = c.e;
  if (c.et !== undefined) fin.et = c.et;
  if (c.x !== undefined) fin.x = c.x;
  if (c.d !== undefined) fin.d = c.d;
  if (c.s !== 'COMPLETED') {
    fin.o = f.o;
    fin.l = f.l;
  }
  finalize(d, fin);
}

/** A failure the retry options say is not worth another attempt (the job workflow's rule). */
function neverRetried(c: Completion, retry: BatchWorkflowInput['options']['retry']): boolean {
  const type = c.et;
  if (type && retry.nonRetryableErrorTypes.some((n) => type === n || type.endsWith(`.${n}`))) return true;
  return c.e !== undefined && retry.nonRetryableErrorPatterns.some((p) => new RegExp(p).test(c.e!));
}

/** Records the one outcome of an input. */
export function finalize(d: LedgerData, f: Final): void {
  d.finals.push(f);
  d.counts.done++;
  d.counts.byStatus[f.s] = (d.counts.byStatus[f.s] ?? 0) + 1;
  if (f.e !== undefined && f.s !== 'COMPLETED') {
    d.lastErrors.push({ index: f.i, error: f.e.slice(0, 300) });
    if (d.lastErrors.length > 5) d.lastErrors.shift();
  }
}

/** Jobs finished as failed while waiting to be retried end as their last run when the batch stops retrying. */
export function abandonWaiting(d: LedgerData, now: number): void {
  for (const w of d.waiting) {
    const f: Final = {
      i: w.i,
      s: w.last.s as BatchOutcomeStatus,
      a: w.a - 1,
      ids: w.ids,
      t0: w.t0,
      t1: now,
      o: w.o,
      l: w.l,
    };
    if (w.last.e !== undefined) f.e = w.last.e;
    if (w.last.et !== undefined) f.et = w.last.et;
    finalize(d, f);
  }
  d.waiting = [];
  syncCounts(d);
}

export function syncCounts(d: LedgerData): void {
  d.counts.inFlight = d.inFlight.length;
  d.counts.waitingRetry = d.waiting.length;
}

/** Per-key in-flight counts (jobs in flight and waiting retries hold their key's slot). */
export function keyCounts(d: LedgerData): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of [...d.inFlight, ...d.waiting]) if (x.k !== undefined) m.set(x.k, (m.get(x.k) ?? 0) + 1);
  return m;
}

/** A due retry order for `w`: `/retry` while its result is retained, else a new submission. */
export function retryOrder(w: Waiting, now: number): RetryOrder {
  const o: RetryOrder = { i: w.i, o: w.o, l: w.l, id: w.id, a: w.a, how: now < w.until ? 'retry' : 'resubmit' };
  if (w.k !== undefined) o.k = w.k;
  return o;
}
