/**
 * The ledger's side of a bulk step: applies what the step did (submissions, retries, cancels,
 * completions, expired and still-running jobs) to the batch's ledger. A finished job is retried or
 * given its outcome by the retry rule (contracts/retry-rule.ts). Pure.
 */
import type { BatchOutcomeStatus, BatchWorkflowInput } from '../../contracts';
import { FailureType } from '../../contracts/names';
import { RESULT_GONE, decideRetry, retainedUntil, type RunOutcome } from '../../contracts/retry-rule';
import type { Completion, Final, StepResult } from '../../activities/batch/types';
import { ownerOf } from './completion-match';
import { finalize, syncCounts, type InFlight, type LedgerData, type Waiting } from './ledger';

type Options = BatchWorkflowInput['options'];

/** Longest interval between two polls of a job still running, ms. */
const MAX_POLL_MS = 300_000;
/** How soon a job whose cancel was sent is polled, ms. */
const CANCEL_POLL_MS = 2000;

/**
 * Applies what a step did to the ledger; returns nothing, mutates `d`. `exact`: a completion of an
 * earlier run of a retried job is ignored (completion-match.ts; runs recorded before it match by id).
 */
export function applyStep(d: LedgerData, res: StepResult, now: number, o: Options, seq: number, exact = false): void {
  const fallback = o.completion === 'poll' ? o.polling.initialIntervalMs : o.webhookFallbackMs;
  if (res.read) {
    d.counts.read += res.read.cursor.line - d.cursor.line;
    d.cursor = res.read.cursor;
    d.eof = res.read.eof;
  }
  // A line sent (answered or not yet) is no longer deferred.
  const sentIdx = new Set([...res.submitted, ...(res.sg ?? [])].map((s) => s.i));
  d.deferred = d.deferred
    .filter((l) => !sentIdx.has(l.i))
    .concat(res.deferred.filter((l) => !d.deferred.some((x) => x.i === l.i)));
  settleSubmitting(d, res);
  addSubmitted(d, res, now, fallback);
  for (const b of res.bad) finalize(d, { i: b.i, s: 'BAD_INPUT', a: 0, ids: [], e: b.reason, t1: now });
  for (const r of res.rejected) finalize(d, { i: r.i, s: 'FAILED', a: 0, ids: [], e: r.error, t1: now });
  addRetried(d, res, now, fallback);
  for (const id of res.cancelled) {
    const f = d.inFlight.find((x) => x.id === id);
    if (f) {
      f.c = true;
      f.p = Math.min(f.p, now + CANCEL_POLL_MS);
    }
  }
  for (const c of res.completions) complete(d, c, now, o, seq, exact);
  for (const id of res.expired) expire(d, id, now);
  // Jobs polled and found still running: poll again later, less often.
  const polled = new Set(res.polledRunning ?? []);
  for (const f of d.inFlight) {
    if (!polled.has(f.id)) continue;
    f.pe = Math.min(MAX_POLL_MS, Math.round(f.pe * (o.completion === 'poll' ? o.polling.backoffCoefficient : 2)));
    f.p = now + f.pe;
  }
  d.counts.rateLimited += res.rateLimited;
  newDaemon(d, res, now);
  syncCounts(d);
}

/**
 * A step run by another daemon process than the last (a restart, or the step moved): that daemon
 * knows none of the jobs in flight, and their webhooks may have gone to the one that died, so
 * each is polled once at the next step instead of at its fallback (30 s).
 */
function newDaemon(d: LedgerData, res: StepResult, now: number): void {
  if (res.dm === undefined) return;
  if (d.dm !== undefined && d.dm !== res.dm) for (const f of d.inFlight) f.p = Math.min(f.p, now);
  d.dm = res.dm;
}

/**
 * Submissions not answered when their step ended join `submitting`; one answered since (submitted),
 * refused for good (rejected) or never sent / abandoned unanswered (deferred: sent again with the
 * same idempotency key) leaves it.
 */
function settleSubmitting(d: LedgerData, res: StepResult): void {
  if (!d.submitting && !res.sg) return;
  const settled = new Set([...res.submitted, ...res.rejected, ...res.deferred, ...res.bad].map((x) => x.i));
  const fresh = new Set((res.sg ?? []).map((x) => x.i));
  d.submitting = (d.submitting ?? []).filter((x) => !settled.has(x.i) && !fresh.has(x.i)).concat(res.sg ?? []);
}

/** New submissions join the jobs in flight (attempt 1), polled after `fallback` ms if nothing is heard. */
function addSubmitted(d: LedgerData, res: StepResult, now: number, fallback: number): void {
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
}

/** Retries sent move from waiting to in flight; a refused `/retry` is resubmitted at the next step. */
function addRetried(d: LedgerData, res: StepResult, now: number, fallback: number): void {
  for (const r of res.retried) {
    const w = d.waiting.find((x) => x.i === r.i);
    if (!w) continue;
    if (r.refused) {
      // `/retry` refused (expired, wrong state): the rule then says resubmit.
      w.until = RESULT_GONE;
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
}

/** A job the service no longer knows (its ttl expired) ends JOB_EXPIRED. */
function expire(d: LedgerData, id: string, now: number): void {
  const f = d.inFlight.find((x) => x.id === id);
  if (!f) return;
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

/** A finished job: waits for its retry when the retry rule says so, else gets its one outcome. */
function complete(d: LedgerData, c: Completion, now: number, o: Options, seq: number, exact: boolean): void {
  const f = ownerOf(d.inFlight, c, exact);
  if (!f) return; // already finished (a webhook and a poll both saw it), or of an earlier run
  d.inFlight = d.inFlight.filter((x) => x !== f);
  if (c.x !== undefined) {
    d.execMs += c.x;
    d.execN = (d.execN ?? 0) + 1;
  }
  const next = decideRetry(o.retry, runOutcome(c, f), f.a);
  if (next.retry) {
    const last: Waiting['last'] = { s: c.s };
    if (c.e !== undefined) last.e = c.e;
    if (c.et !== undefined) last.et = c.et;
    d.waiting.push({
      i: f.i,
      o: f.o,
      l: f.l,
      ...(f.k !== undefined ? { k: f.k } : {}),
      id: f.id,
      a: next.next,
      // A run counted past the ledger's (a `/retry` whose answer was lost): the next `/retry` counts from it.
      r: exact ? Math.max(f.r, c.r) : f.r,
      ids: f.ids,
      t0: f.t0,
      at: now + next.delayMs,
      until: retainedUntil(now, o.resultRetentionMs),
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

/** A completion as the retry rule reads it (a job whose cancel was sent is never retried). */
function runOutcome(c: Completion, f: InFlight): RunOutcome {
  const r: RunOutcome = { status: c.s };
  if (c.e !== undefined) r.error = c.e;
  if (c.et !== undefined) r.errorType = c.et;
  if (f.c) r.cancelRequested = true;
  return r;
}
