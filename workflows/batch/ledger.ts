/**
 * The batch's bookkeeping inside the workflow: jobs in flight, lines waiting for a key's cap,
 * retries waiting for their backoff, outcomes to write, counters. Plain data (it crosses
 * continue-as-new as JSON, so its field names are recorded in history); every index gets exactly
 * one outcome. What a step did is applied by ledger-step.ts; the plan reads it (plan.ts). Pure.
 */
import type { BatchCounts, BatchOutcomeStatus, JobStatus } from '../../contracts';
import { retryOrResubmit } from '../../contracts/retry-rule';
import type { Cursor, Final, LineRef, RetryOrder, Submitting } from '../../activities/batch/types';

/** A remote job of one input that has not finished yet (short keys: see activities/batch/types.ts). */
export interface InFlight extends LineRef {
  /** remoteJobId. */
  id: string;
  /** attempt: the remote run's number, from 1; `/retry` keeps the id and adds one. */
  a: number;
  /** retries: `/retry`s of this remote id so far (webhooks of older runs do not match). */
  r: number;
  /** remoteJobIds: every id the input ran as. */
  ids: string[];
  /** submittedAt: when the input was first submitted. */
  t0: number;
  /** pollAt: when to poll `/status` if nothing was heard. */
  p: number;
  /** pollEvery: the poll interval after the next poll. */
  pe: number;
  /** cancelRequested: the batch sent its cancel. */
  c?: boolean;
}

/** A finished job that will run again after its backoff (the retry rule's decision). */
export interface Waiting extends LineRef {
  /** remoteJobId of the run that ended. */
  id: string;
  /** attempt: the attempt it runs as next. */
  a: number;
  /** retries: `/retry`s of this remote id so far. */
  r: number;
  /** remoteJobIds. */
  ids: string[];
  /** submittedAt. */
  t0: number;
  /** Not before this time (the backoff). */
  at: number;
  /** Until when its result is retained on the service (then resubmit, not `/retry`; `RESULT_GONE` after a refusal). */
  until: number;
  /** The run that ended: its status, error, error type, execution and delay times (its outcome if the batch stops). */
  last: { s: JobStatus; e?: string; et?: string; x?: number; d?: number };
}

/** Everything a batch carries from one run to the next. */
export interface LedgerData {
  cursor: Cursor;
  eof: boolean;
  inFlight: InFlight[];
  /** The daemon process that ran the last step (absent in ledgers from before). */
  dm?: string;
  /** First submissions whose answer is not known yet: each holds its slot (absent in ledgers from before). */
  submitting?: Submitting[];
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
  d.counts.inFlight = d.inFlight.length + (d.submitting?.length ?? 0);
  d.counts.waitingRetry = d.waiting.length;
}

/** Jobs in flight and submissions not answered yet: what holds the window's slots. */
export const holding = (d: LedgerData): number => d.inFlight.length + (d.submitting?.length ?? 0);

/** Per-key in-flight counts (jobs in flight, submissions not answered yet and waiting retries hold their key's slot). */
export function keyCounts(d: LedgerData): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of [...d.inFlight, ...(d.submitting ?? []), ...d.waiting])
    if (x.k !== undefined) m.set(x.k, (m.get(x.k) ?? 0) + 1);
  return m;
}

/** A due retry order for `w`: `/retry` while its result is retained, else a new submission (the retry rule). */
export function retryOrder(w: Waiting, now: number): RetryOrder {
  const o: RetryOrder = { i: w.i, o: w.o, l: w.l, id: w.id, a: w.a, how: retryOrResubmit(now, w.until) };
  if (w.k !== undefined) o.k = w.k;
  return o;
}
