/**
 * What the batch does next, decided from its ledger and controls: outcomes to write, lines to
 * read and submit, retries that are due, jobs to cancel or poll, and how long to wait. Pure.
 */
import type { BatchWorkflowInput, WaitReason } from '../../contracts';
import type { LineRef, RetryOrder, StepRequest } from '../../activities/batch/types';
import { submitBlockers, type Controls } from './controls';
import { keyCounts, retryOrder, type LedgerData } from './ledger';

/** Most of each kind per step: bounds the step's payload in history. */
const MAX_WRITE = 1000;
const MAX_ORDERS = 500;
/** Longest wait of one step for completions, so controls are seen promptly. */
const MAX_WAIT_MS = 5000;
/** How long a step keeps refilling the window itself. */
const REFILL_MS = 1000;

export type StepPlan = Omit<
  StepRequest,
  'run' | 'seq' | 'endpointId' | 'source' | 'inputFormat' | 'policy' | 'webhook' | 'priority'
>;

export function planStep(
  d: LedgerData,
  input: BatchWorkflowInput,
  c: Controls,
  spend: number,
  now: number,
): { plan: StepPlan; waiting: WaitReason[] } {
  const o = input.options;
  const waiting: WaitReason[] = [];
  const blockers = c.cancelling ? [] : submitBlockers(c, spend, now);
  const submitting = !c.cancelling && blockers.length === 0;
  waiting.push(...blockers);
  let room = Math.max(0, c.concurrency - d.inFlight.length);
  const keys = keyCounts(d);
  const keyLimit = c.keyLimit;
  const hasKeyRoom = (k: string | undefined) =>
    keyLimit === undefined || k === undefined || (keys.get(k) ?? 0) < keyLimit;
  const take = (k: string | undefined) => {
    room--;
    if (k !== undefined) keys.set(k, (keys.get(k) ?? 0) + 1);
  };

  const retry: RetryOrder[] = [];
  if (submitting) {
    for (const w of d.waiting) {
      if (room <= 0 || retry.length >= MAX_ORDERS) break;
      if (w.at > now) continue;
      retry.push(retryOrder(w, now));
      room--; // its key slot is already held while it waits
    }
    if (d.waiting.some((w) => w.at > now)) waiting.push('retry-backoff');
  }

  const submit: LineRef[] = [];
  if (submitting) {
    for (const l of d.deferred) {
      if (room <= 0 || submit.length >= MAX_ORDERS) break;
      if (!hasKeyRoom(l.k)) continue;
      submit.push(l);
      take(l.k);
    }
    if (d.deferred.length > submit.length) waiting.push('key-cap');
  }

  let read: StepPlan['read'];
  // Read on while few lines wait for their key: blocked keys must not stall the others for long.
  const deferredRoom = Math.max(0, 2 * c.concurrency - d.deferred.length);
  // Without key caps or a cost cap, a step also refills the window itself as jobs complete
  // (webhooks only), up to the deadline.
  const refillMs = Math.min(REFILL_MS, (c.deadline ?? Infinity) - now);
  const refill =
    submitting &&
    !d.eof &&
    keyLimit === undefined &&
    c.maxCost === undefined &&
    o.completion === 'webhook' &&
    refillMs > 0;
  if (submitting && !d.eof && (room > 0 || refill) && deferredRoom > 0) {
    const lines = Math.min(MAX_ORDERS, keyLimit !== undefined ? Math.min(deferredRoom, room * 2) : room);
    read = {
      from: d.cursor,
      lines,
      room: Math.min(room, MAX_ORDERS),
      keyCounts: Object.fromEntries(keys),
      ...(o.keyPath ? { keyPath: o.keyPath } : {}),
      ...(keyLimit !== undefined ? { keyLimit } : {}),
    };
  }
  if (room <= 0 && submitting && (!d.eof || d.deferred.length > 0)) waiting.push('window-full');
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

  // Wait for completions only when nothing else can move: then until the next poll or retry is due.
  const busy = retry.length + submit.length + cancel.length + poll.length > 0 || read !== undefined;
  let waitMs = 0;
  if (!busy && d.inFlight.length > 0) {
    const next = Math.min(...d.inFlight.map((f) => f.p), ...d.waiting.map((w) => w.at), c.deadline ?? Infinity);
    waitMs = Math.max(50, Math.min(MAX_WAIT_MS, next - now));
  }
  const write = d.finals.slice(0, MAX_WRITE);
  const min = Math.max(1, Math.min(d.inFlight.length, Math.ceil(c.concurrency / 10)));
  // Input left to submit (retries in backoff aside): the daemon's lower-priority batches on the endpoint yield to this one.
  const more = submitting && (!d.eof || d.deferred.length > 0);
  const plan: StepPlan = {
    write,
    read,
    submit,
    retry,
    cancel,
    poll,
    collect: { waitMs, min, ...(refill && read ? { refillMs } : {}) },
  };
  return { plan: more ? { ...plan, more } : plan, waiting };
}
