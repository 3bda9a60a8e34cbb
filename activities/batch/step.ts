/**
 * One step of a batch, in bulk: write the outcomes decided so far, submit new and deferred lines,
 * retry or resubmit due jobs, cancel, poll late jobs, then collect finished jobs. Idempotent:
 * submissions are journaled as they happen and the whole result is kept once the step is done.
 */
import { batchKeys, runKey } from '../../contracts/names';
import { isTerminal, type JobRecord, type JobSubmission, type WaitReason } from '../../contracts';
import { DEFAULT_PRIORITY, isPlatformApiError, type QueueClient } from '../../platform-api';
import { toFailure } from '../errors';
import { type ObjectStore } from '../../results/store/object-store';
import { awaitFinished, beat, collected, refill } from './collect';
import { type BatchInbox, type InboxPosition } from '../../results/batch/inbox';
import { keyOf, parseLine } from './input';
import { batchInput } from '../../results/batch/locations';
import { outcomeSegments } from './outcomes';
import { standing, type PriorityBoard } from './priority-board';
import { subsetOf } from '../../results/batch/rerun';
import { Submitter, type Submitted } from './submitter';
import { type LineRef, type StepRequest, type StepResult } from './types';

export interface StepDeps {
  queue: Pick<QueueClient, 'run' | 'retry' | 'cancel' | 'status'>;
  store: ObjectStore;
  inbox?: BatchInbox;
  /** The webhook URL of a batch run's jobs (absent: polling only). */
  webhookUrl?: (req: StepRequest) => string;
  /** The price of one worker-hour of an endpoint, when known. */
  price?: (endpointId: string) => Promise<number | undefined>;
  /** The daemon's batches with input left, by endpoint and priority (a lower one yields). */
  board?: PriorityBoard;
}

/** A submission held this long (ms) by the endpoint's rate budget makes the step report `rate-budget`. */
const HELD_MS = 100;
/** How long a step that yields to a higher-priority batch waits for its own completions, ms. */
const YIELD_WAIT_MS = 2000;
/**
 * A step held by the rate budget stops sending new lines after this long (they come back deferred),
 * so the batch's status says `rate-budget` while it lasts, not only after a long step.
 */
const HELD_STEP_MS = 2000;

export async function runStep(deps: StepDeps, req: StepRequest): Promise<StepResult> {
  const { store, queue } = deps;
  const done = batchKeys.stepResult(req.run, req.seq);
  const kept = (await store.find(done)) as Kept | undefined;
  if (kept) return withoutInbox(kept);
  // Webhooks of this batch received by any daemon, from where the last finished step stopped (a
  // batch that polls has none to read).
  const inbox = deps.inbox && req.webhook ? await deps.inbox.open(req.run, req.seq) : undefined;
  const input = batchInput(req.source);

  if (req.write.length > 0) await outcomeSegments(store, req.run, req.seq, req.write, input);

  const res: StepResult = {
    submitted: [],
    deferred: [],
    bad: [],
    rejected: [],
    retried: [],
    cancelled: [],
    completions: [],
    expired: [],
    polledRunning: [],
    rateLimited: 0,
  };
  const sub = await Submitter.open(queue, store, req, req.webhook ? deps.webhookUrl?.(req) : undefined);
  // Priority among the daemon's batches on this endpoint: while a higher one has input left, this
  // one submits no new lines (retries still go), so its jobs do not queue ahead of the higher one's.
  const priority = req.priority ?? DEFAULT_PRIORITY;
  const prio = req.priority !== undefined ? { priority: req.priority } : {};
  const me = runKey(req.run);
  const wants = req.more ?? (req.read !== undefined || req.submit.length > 0 || req.retry.length > 0);
  const stand = standing(deps.board, me, req.endpointId, priority, wants);
  const outranked = (): boolean => stand.outranked();
  const yielding = outranked();
  // New submissions stop as soon as a higher-priority batch turns up, or once the budget has held
  // this step for a while (they come back deferred).
  const t0 = Date.now();
  sub.yieldIf = () => outranked() || (sub.heldMs >= HELD_MS && Date.now() - t0 >= HELD_STEP_MS);
  const beating = (phase: string) => () => beat({ seq: req.seq, phase });
  const record = (ref: LineRef, r: Submitted): void => {
    if (r === undefined) res.deferred.push(ref);
    else if ('error' in r) res.rejected.push({ i: ref.i, error: r.error });
    else res.submitted.push({ ...ref, id: r.id, ...(r.dup ? { dup: true } : {}) });
  };
  const parsed = (ref: LineRef, text: string) => {
    const p = parseLine(text, req.inputFormat, req.policy);
    if ('bad' in p) res.bad.push({ i: ref.i, reason: `line ${ref.i + 1}: ${p.bad}` });
    return 'body' in p ? p.body : undefined;
  };

  // Retries first (they hold their slot), then lines deferred earlier, then new lines.
  await sub.each(
    req.retry,
    async (r) => {
      if (r.how === 'retry') {
        const got = await sub.retry(r.i, r.id, r.a);
        if (got !== 'limited')
          res.retried.push({ i: r.i, id: r.id, how: 'retry', ...(got === 'refused' ? { refused: true } : {}) });
        return;
      }
      const body = parsed(r, await input.readLineAt(r.o, r.l));
      const got = body ? await sub.submit(r.i, body, r.a, 'resubmit') : undefined;
      if (got && !('error' in got)) res.retried.push({ i: r.i, id: got.id, how: 'resubmit' });
    },
    beating('retry'),
  );
  await sub.each(
    yielding ? [] : req.submit,
    async (ref) => {
      const body = parsed(ref, await input.readLineAt(ref.o, ref.l));
      if (body) record(ref, await sub.submit(ref.i, body, 1, 'submit'));
    },
    beating('submit'),
  );
  if (req.read && !yielding) {
    const page = await input.readLines(req.read.from, req.read.lines, await keepOf(store, req));
    const counts = new Map(Object.entries(req.read.keyCounts));
    let room = req.read.room;
    const send: { ref: LineRef; body: JobSubmission }[] = [];
    for (const line of page.lines) {
      const ref: LineRef = { i: line.i, o: line.o, l: line.l };
      const body = parsed(ref, line.text);
      if (!body) continue;
      if (req.read.keyPath) {
        const k = keyOf(body.input, req.read.keyPath);
        if (k !== undefined) ref.k = k;
      }
      const capped =
        req.read.keyLimit !== undefined && ref.k !== undefined && (counts.get(ref.k) ?? 0) >= req.read.keyLimit;
      if (capped || room <= 0) {
        res.deferred.push(ref);
        continue;
      }
      send.push({ ref, body });
      room--;
      if (ref.k !== undefined) counts.set(ref.k, (counts.get(ref.k) ?? 0) + 1);
    }
    await sub.each(
      send,
      async ({ ref, body }) => record(ref, await sub.submit(ref.i, body, 1, 'submit')),
      beating('read'),
    );
    res.read = { cursor: page.cursor, eof: page.eof };
  }
  res.rateLimited = sub.rateLimited;

  for (const id of req.cancel) {
    try {
      await queue.cancel(req.endpointId, id, prio);
    } catch (err) {
      if (!isPlatformApiError(err, 'NOT_FOUND') && !isPlatformApiError(err, 'RATE_LIMITED')) throw toFailure(err);
    }
    res.cancelled.push(id);
  }

  const finished: JobRecord[] = [];
  for (const id of req.poll) {
    beat({ seq: req.seq, phase: 'poll' });
    try {
      const r = await queue.status(req.endpointId, id, prio);
      if (isTerminal(r.status)) finished.push(r);
      else res.polledRunning.push(id);
    } catch (err) {
      if (isPlatformApiError(err, 'NOT_FOUND')) res.expired.push(id);
      else if (!isPlatformApiError(err, 'RATE_LIMITED')) throw toFailure(err);
    }
  }
  if (inbox && req.collect.refillMs && req.read && res.read && !res.read.eof) {
    await refill(
      inbox,
      input,
      req,
      res,
      sub,
      finished,
      (ref, r) => record(ref, r),
      (ref, text) => parsed(ref, text),
      outranked,
      await keepOf(store, req),
    );
  }
  const waitMs = req.collect.waitMs > 0 ? req.collect.waitMs : yielding ? YIELD_WAIT_MS : 0;
  await awaitFinished(inbox, req, waitMs, finished);
  res.completions = await collected(store, req, finished);
  if (req.wantPrice && deps.price) {
    const price = await deps.price(req.endpointId).catch(() => undefined);
    if (price !== undefined) res.pricePerHour = price;
  }
  const held: WaitReason[] = [];
  if (sub.heldMs >= HELD_MS || sub.rateLimited > 0) held.push('rate-budget');
  if (stand.yielded) held.push('priority');
  if (held.length > 0) res.held = held;
  if (res.read?.eof && res.deferred.length === 0) deps.board?.done(me);
  // Kept once, with how far it read the inbox: a concurrent attempt of this step that finished first is the answer.
  const keep: Kept = inbox ? { ...res, inboxAt: inbox.position() } : res;
  if (!(await store.create(done, keep))) return withoutInbox((await store.get(done)) as Kept);
  return res;
}

/** A step result as kept in the store: with the inbox positions the next step starts from (not for history). */
type Kept = StepResult & { inboxAt?: InboxPosition };

function withoutInbox(kept: Kept): StepResult {
  const { inboxAt: _, ...res } = kept;
  return res;
}

/** The lines a retry-failed run reads (its subset); every line otherwise. */
const keepOf = async (store: ObjectStore, req: StepRequest) =>
  req.subset ? (await subsetOf(store, req.run)).has : undefined;
