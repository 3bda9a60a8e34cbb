/**
 * What the batch does next, decided from its ledger and controls: outcomes to write, lines to
 * read and submit, retries that are due, jobs to cancel or poll, and how long to wait. Pure.
 */
import type { BatchWorkflowInput, WaitReason } from '../../contracts';
import type { LineRef, RetryOrder, StepRequest } from '../../activities/batch/types';
import { submitBlockers, type Controls } from './controls';
import { holding, keyCounts, retryOrder, type LedgerData } from './ledger';

/** Most of each kind per step: bounds the step's payload in history. */
const MAX_WRITE = 1000;
/** The outcomes left to write fit in one call: the finish's, once nothing else is left to do. */
export const writableAtFinish = (d: LedgerData): boolean => d.finals.length <= MAX_WRITE;
const MAX_ORDERS = 500;
/** Longest wait of one step for completions, so controls are seen promptly. */
const MAX_WAIT_MS = 5000;
/**
 * With the input all sent, how long the step that waits for every job held lingers for them after
 * the first completes (the inbox's own linger is 200 ms): the batch's last jobs land in one step,
 * not in a step of their own after it (issue 23); a failure's retry waits at most this long.
 */
const LAST_LINGER_MS = 1000;
/** How long a step keeps refilling the window itself. */
const REFILL_MS = 1000;
/**
 * An open feed's batch (a pipeline's stage) refills for longer: its rows come from the pipeline's
 * steps, not a file it can outrun, and each step is six history events whatever it moves (issue 22:
 * at a stage's ~100 jobs/s a 1 s step alone is 0.06 events per input).
 */
const FEED_REFILL_MS = 3000;

export type StepPlan = Omit<
  StepRequest,
  'run' | 'seq' | 'endpointId' | 'source' | 'inputFormat' | 'policy' | 'webhook' | 'priority'
>;

/** What a step decides from the ledger and controls; `waiting` says why it does no more. */
export function planStep(
  d: LedgerData,
  input: BatchWorkflowInput,
  c: Controls,
  spend: number,
  now: number,
  /** The batch's feed is open (more lines may come): it refills from it also when caught up. */
  feedOpen = false,
  /**
   * A due retry the window has no room for stops the steps' refill until it has (the runs recorded
   * since `BATCH_PATCHES.retriesFirst`): a refill gives every slot a completion frees to a new line,
   * so before, retries waited for the input's end (a platform restart's failed jobs ran last).
   */
  retriesFirst = false,
): { plan: StepPlan; waiting: WaitReason[] } {
  const waiting: WaitReason[] = [];
  const blockers = c.cancelling ? [] : submitBlockers(c, spend, now);
  const submitting = !c.cancelling && blockers.length === 0;
  waiting.push(...blockers);
  const w = windowOf(d, c);
  const retry = submitting ? dueRetries(d, w, now) : [];
  if (submitting && d.waiting.some((x) => x.at > now)) waiting.push('retry-backoff');
  const submit = submitting ? deferredWithRoom(d, w, c.keyLimit) : [];
  if (submitting && d.deferred.length > submit.length) waiting.push('key-cap');
  const starved = retriesFirst && d.waiting.filter((x) => x.at <= now).length > retry.length;
  const { read, refillMs } = submitting ? readOrder(d, input.options, c, w, now, feedOpen, starved) : {};
  if (w.room <= 0 && submitting && (!d.eof || d.deferred.length > 0)) waiting.push('window-full');
  if (d.eof && d.deferred.length === 0 && d.waiting.length === 0) waiting.push('input-done');

  const cancel = c.cancelling
    ? d.inFlight
        .filter((f) => !f.c)
        .slice(0, MAX_ORDERS)
        .map((f) => f.id)
    : [];
  const poll = d.inFlight
    .filter((f) => f.p <= now)
    .slice(0, MAX_ORDERS)
    .map((f) => f.id);
  const busy = retry.length + submit.length + cancel.length + poll.length > 0 || read !== undefined;
  // With the input all sent, a completion frees no room worth a step of its own: the step waits for
  // every job held (the inbox returns at most its linger after the first), so the batch finishes as
  // the last one lands. Before that, a few completions are worth refilling the window for.
  const allSent = d.eof && !feedOpen && d.deferred.length === 0 && d.waiting.length === 0;
  const min = Math.max(1, allSent ? holding(d) : Math.min(holding(d), Math.ceil(c.concurrency / 10)));
  const sg = (d.submitting ?? []).slice(0, MAX_ORDERS);
  // A read of a file with nothing else left to send: if it sends the last line, the step collects on as the next would.
  const last =
    read !== undefined && !feedOpen && d.deferred.length === 0 && d.waiting.length === 0 && sg.length === 0
      ? { held: holding(d), waitMs: untilNext(d, c, now), linger: LAST_LINGER_MS }
      : undefined;
  // Input left to submit (retries in backoff aside): the daemon's lower-priority batches on the endpoint yield to this one.
  const more = submitting && (!d.eof || d.deferred.length > 0);
  const plan: StepPlan = {
    write: d.finals.slice(0, MAX_WRITE),
    read,
    submit,
    retry,
    cancel,
    poll,
    collect: {
      waitMs: busy ? 0 : waitOf(d, c, now),
      min,
      ...(allSent ? { linger: LAST_LINGER_MS } : {}),
      ...(refillMs !== undefined ? { refillMs } : {}),
      ...(last ? { last } : {}),
      // An open feed's refill ends once every job it holds is done (nothing left to wait for): the jobs held as it starts.
      ...(refillMs !== undefined && feedOpen ? { held: holding(d) + retry.length + submit.length } : {}),
    },
    ...(sg.length > 0 ? { sg } : {}),
  };
  return { plan: more ? { ...plan, more } : plan, waiting };
}

/** The window's free room and the key slots held, as the plan fills them. */
interface Window {
  room: number;
  keys: Map<string, number>;
}

const windowOf = (d: LedgerData, c: Controls): Window => ({
  room: Math.max(0, c.concurrency - holding(d)),
  keys: keyCounts(d),
});

/** Retries whose backoff is over, while the window has room (each holds its key slot already). */
function dueRetries(d: LedgerData, w: Window, now: number): RetryOrder[] {
  const retry: RetryOrder[] = [];
  for (const x of d.waiting) {
    if (w.room <= 0 || retry.length >= MAX_ORDERS) break;
    if (x.at > now) continue;
    retry.push(retryOrder(x, now));
    w.room--; // its key slot is already held while it waits
  }
  return retry;
}

/** Lines deferred earlier whose key now has room, while the window has room. */
function deferredWithRoom(d: LedgerData, w: Window, keyLimit?: number): LineRef[] {
  const submit: LineRef[] = [];
  for (const l of d.deferred) {
    if (w.room <= 0 || submit.length >= MAX_ORDERS) break;
    if (keyLimit !== undefined && l.k !== undefined && (w.keys.get(l.k) ?? 0) >= keyLimit) continue;
    submit.push(l);
    w.room--;
    if (l.k !== undefined) w.keys.set(l.k, (w.keys.get(l.k) ?? 0) + 1);
  }
  return submit;
}

/**
 * New lines to read; with webhooks and no caps, the step also refills the window itself for
 * `refillMs`, an open feed's batch also when it has caught up with the feed (rows written meanwhile
 * are read by the step itself, before their signal comes).
 */
function readOrder(
  d: LedgerData,
  o: BatchWorkflowInput['options'],
  c: Controls,
  w: Window,
  now: number,
  feedOpen: boolean,
  /** A due retry waits for room: no refill (the room completions free goes to it at the next step). */
  noRefill = false,
): { read?: StepPlan['read']; refillMs?: number } {
  const keyLimit = c.keyLimit;
  // Read on while few lines wait for their key: blocked keys must not stall the others for long.
  const deferredRoom = Math.max(0, 2 * c.concurrency - d.deferred.length);
  // Without key caps or a cost cap, a step also refills the window itself as jobs complete
  // (webhooks only), up to the deadline.
  const refillMs = Math.min(feedOpen ? FEED_REFILL_MS : REFILL_MS, (c.deadline ?? Infinity) - now);
  const more = !d.eof || feedOpen;
  const refill =
    !noRefill &&
    more &&
    keyLimit === undefined &&
    c.maxCost === undefined &&
    o.completion === 'webhook' &&
    refillMs > 0;
  if (!more || !(w.room > 0 || refill) || deferredRoom <= 0) return {};
  const lines = Math.min(MAX_ORDERS, keyLimit !== undefined ? Math.min(deferredRoom, w.room * 2) : w.room);
  const read: StepPlan['read'] = {
    from: d.cursor,
    lines,
    room: Math.min(w.room, MAX_ORDERS),
    keyCounts: Object.fromEntries(w.keys),
    ...(o.keyPath ? { keyPath: o.keyPath } : {}),
    ...(keyLimit !== undefined ? { keyLimit } : {}),
  };
  return refill ? { read, refillMs } : { read };
}

/**
 * Wait for completions only when nothing else can move: then until the next poll or retry is due
 * (a step waiting on submissions not answered yet also returns when one answers).
 */
function waitOf(d: LedgerData, c: Controls, now: number): number {
  return holding(d) === 0 ? 0 : untilNext(d, c, now);
}

/** Until the next poll or retry is due (or the deadline), within 50 ms and {@link MAX_WAIT_MS}. */
function untilNext(d: LedgerData, c: Controls, now: number): number {
  const next = Math.min(...d.inFlight.map((f) => f.p), ...d.waiting.map((x) => x.at), c.deadline ?? Infinity);
  return Math.max(50, Math.min(MAX_WAIT_MS, next - now));
}
