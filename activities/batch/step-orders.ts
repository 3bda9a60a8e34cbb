/**
 * What a bulk step sends on the workflow's orders: retries (as the retry rule chose: `/retry` or a
 * new submission), new lines read (up to the room, the rest deferred), cancels, and polls of late
 * jobs. step.ts runs them in that order.
 */
import { isTerminal, type JobRecord, type JobSubmission } from '../../contracts';
import { isPlatformApiError, type QueueClient } from '../../platform-api';
import { toFailure } from '../errors';
import { type ObjectStore } from '../../results/store/object-store';
import { type PollsUnderWay } from './collect';
import { beat } from './heartbeat';
import { keyOf } from './input';
import { type BatchInput } from '../../results/batch/locations';
import { missedIfFound, type InFlightJobs } from './in-flight';
import { type WebhookHealth } from '../../results/webhook-health';
import { type PriorityBoard, type Standing } from './priority-board';
import { type BatchInbox } from '../../results/batch/inbox';
import { subsetOf } from '../../results/batch/rerun';
import { type SubmissionWebhooks, type Submitted, type Submitter } from './submitter';
import { type DetachedSubmissions, type StepSends } from './detached';
import { type LineRef, type StepRequest, type StepResult } from './types';

/**
 * Polls of the workflow's orders under way at once: a slow answer (issue 19's delays, a 502 retried)
 * holds only its lane. Far within the `/status` budget (400 at once, 2,000 a window: the client's
 * rate budget paces them); a dead daemon's jobs, a window's worth, are polled at once after a restart.
 */
const POLL_LANES = 64;
/**
 * How long a step with the daemon's memory of its batch's jobs waits for its polls, from their start,
 * ms: then the unanswered are handed on (their answers go to that memory, for the batch's next step),
 * and the step ends: a poll answered seconds late holds up no step.
 */
export const POLL_PATIENCE_MS = 1000;

/** What a step's activity is built with. */
export interface StepDeps {
  queue: Pick<QueueClient, 'run' | 'retry' | 'cancel' | 'status'> & Partial<Pick<QueueClient, 'health'>>;
  store: ObjectStore;
  inbox?: BatchInbox;
  /** The webhook URLs of batch submissions, and their binding to the jobs sent (absent: polling only). */
  webhooks?: SubmissionWebhooks;
  /** The price of one worker-hour of an endpoint, when known. */
  price?: (endpointId: string) => Promise<number | undefined>;
  /** The daemon's batches with input left, by endpoint and priority (a lower one yields). */
  board?: PriorityBoard;
  /** The daemon's batch jobs in flight (polled when late, or steadily once webhooks stop). */
  inFlight?: InFlightJobs;
  /** Whether webhooks reach the daemon (and each batch). */
  health?: WebhookHealth;
  /** The daemon's submissions that outlived their step (docs/batch.md "Late answers"). */
  detached?: DetachedSubmissions;
}

/** A step under way: its request, the result it builds, its submitter and its place among the daemon's batches. */
export interface Step {
  deps: StepDeps;
  req: StepRequest;
  input: BatchInput;
  res: StepResult;
  sub: Submitter;
  /** The step's first submissions (handed on unanswered at its end when the workflow allows it). */
  sends: StepSends;
  stand: Standing;
  /** This batch's key on the priority board. */
  me: string;
  /** The batch's priority for the service's calls (absent: the default). */
  prio: { priority?: number };
  /** A higher-priority batch on the endpoint had input left when the step began: no new lines. */
  yielding: boolean;
  outranked: () => boolean;
  beating: (phase: string) => () => void;
  /** Records what a submission of `ref` came to: submitted, rejected for good, or deferred. */
  record: (ref: LineRef, r: Submitted) => void;
  /** The submission of a line, or undefined when it is bad (recorded as such). */
  parsed: (ref: LineRef, text: string) => JobSubmission | undefined;
  /** A submission not answered within its step was answered with remote job `id` (`dup`: an earlier submission's). */
  answered: (id: string, dup?: boolean) => void;
  /** The window's room left after the step read its new lines (an open feed's end came first). */
  spare?: number;
}

/**
 * Carries out the workflow's retry orders as the retry rule chose them (contracts/retry-rule.ts):
 * `/retry` (a refusal is reported, and the workflow resubmits next), or a new submission of the line.
 * An order the rate limit held back is not reported: it stays due.
 */
export async function sendRetries(s: Step): Promise<void> {
  const { sub, res, input } = s;
  await sub.each(
    s.req.retry,
    async (r, lane) => {
      if (r.how === 'retry') {
        const got = await sub.retry(r.i, r.id, r.a, lane);
        if (got !== 'limited')
          res.retried.push({ i: r.i, id: r.id, how: 'retry', ...(got === 'refused' ? { refused: true } : {}) });
        return;
      }
      const body = s.parsed(r, await input.readLineAt(r.o, r.l));
      const got = body ? await sub.submit(r.i, body, r.a, 'resubmit', { lane }) : undefined;
      if (got && !('error' in got)) res.retried.push({ i: r.i, id: got.id, how: 'resubmit' });
    },
    s.beating('retry'),
  );
}

/** Reads new lines and submits up to `room` of them; lines whose key is at its cap (or past the room) come back deferred. */
export async function readAndSubmit(s: Step, read: NonNullable<StepRequest['read']>): Promise<void> {
  const { res } = s;
  const page = await s.input.readLines(read.from, read.lines, await keepOf(s.deps.store, s.req));
  const counts = new Map(Object.entries(read.keyCounts));
  let room = read.room;
  const send: { ref: LineRef; body: JobSubmission }[] = [];
  for (const line of page.lines) {
    const ref: LineRef = { i: line.i, o: line.o, l: line.l };
    const body = s.parsed(ref, line.text);
    if (!body) continue;
    if (read.keyPath) {
      const k = keyOf(body.input, read.keyPath);
      if (k !== undefined) ref.k = k;
    }
    const capped = read.keyLimit !== undefined && ref.k !== undefined && (counts.get(ref.k) ?? 0) >= read.keyLimit;
    if (capped || room <= 0) {
      res.deferred.push(ref);
      continue;
    }
    send.push({ ref, body });
    room--;
    if (ref.k !== undefined) counts.set(ref.k, (counts.get(ref.k) ?? 0) + 1);
  }
  res.read = { cursor: page.cursor, eof: page.eof };
  s.spare = room;
  await s.sends.sendAll(send, s.beating('read'));
}

/** Cancels the jobs the workflow asked to (one already gone, or a 429, counts as sent: the workflow polls it). */
export async function cancelJobs(s: Step): Promise<void> {
  for (const id of s.req.cancel) {
    try {
      await s.deps.queue.cancel(s.req.endpointId, id, s.prio);
    } catch (err) {
      if (!isPlatformApiError(err, 'NOT_FOUND') && !isPlatformApiError(err, 'RATE_LIMITED')) throw toFailure(err);
    }
    s.res.cancelled.push(id);
  }
}

/** Where a step's polls put what they find, and when the step has handed them on. */
export interface PollSink {
  /** Each finished job found, as its answer comes (the step's refill meanwhile takes its slot); `onFind` told after. */
  sink?: JobRecord[];
  onFind?: (r: JobRecord) => void;
  /**
   * True once the step ended without waiting for the rest (only with the daemon's memory of the batch's
   * jobs): an answer from then on goes to that memory, and polls not started are left to the workflow.
   */
  handedOn?: () => boolean;
}

/**
 * Polls the jobs the workflow ordered polled (late jobs, the workflow's fallback; a dead daemon's
 * jobs): the finished ones are returned (their webhook was missed), the others reported running
 * (and polled steadily from now on if webhooks stop) or expired. Each finished one is also added to
 * `sink` as its answer comes, and `onFind` told (the step's refill runs meanwhile: a slow answer
 * holds up no submission, and a job found done frees its slot). An answer that comes after the step
 * handed its polls on is the daemon's ({@link handedOnAnswer}).
 */
export async function pollJobs(s: Step, { sink, onFind, handedOn }: PollSink = {}): Promise<JobRecord[]> {
  const finished: JobRecord[] = [];
  const { health, inFlight } = s.deps;
  const wf = s.req.run.workflowId;
  const away = (): boolean => handedOn?.() === true;
  const poll = async (id: string): Promise<void> => {
    beat({ seq: s.req.seq, phase: 'poll' });
    try {
      health?.polled();
      const r = await s.deps.queue.status(s.req.endpointId, id, s.prio);
      if (away() && inFlight) return handedOnAnswer(s, inFlight, r);
      if (isTerminal(r.status)) {
        finished.push(r);
        sink?.push(r);
        onFind?.(r);
        if (s.req.webhook && webhookMissed(inFlight, wf, r)) health?.polledDone(id, wf);
      } else {
        s.res.polledRunning.push(id);
        if (s.req.webhook) inFlight?.add(wf, id);
      }
    } catch (err) {
      if (away()) return; // the workflow's next order polls it again
      if (isPlatformApiError(err, 'NOT_FOUND')) s.res.expired.push(id);
      else if (!isPlatformApiError(err, 'RATE_LIMITED')) throw toFailure(err);
    }
  };
  // Several at a time, each lane taking the next job as its answer comes (a slow answer holds only its lane).
  const ids = [...s.req.poll];
  await Promise.all(
    Array.from({ length: Math.min(POLL_LANES, ids.length) }, async () => {
      for (let id = ids.shift(); id !== undefined && !away(); id = ids.shift()) await poll(id);
    }),
  );
  return finished;
}

/**
 * A poll found job `r` finished: ended in the daemon's memory; whether that is a missed webhook
 * (in-flight.ts {@link missedIfFound}). Without that memory, every job is this daemon's.
 */
function webhookMissed(inFlight: InFlightJobs | undefined, wf: string, r: JobRecord): boolean {
  return inFlight ? missedIfFound(inFlight.done(wf, r.id, false)) : true;
}

/**
 * An answer to a step's poll that came after the step handed its polls on: a finished job is kept
 * for the batch's next step (steady-poll.ts takes it, marked polled), one still running is tracked
 * (polled again once late); the workflow's ledger, which heard nothing of it, orders it polled again
 * meanwhile (a repeat poll; the ledger takes one completion per run).
 */
function handedOnAnswer(s: Step, inFlight: InFlightJobs, r: JobRecord): void {
  const wf = s.req.run.workflowId;
  if (!isTerminal(r.status)) return inFlight.add(wf, r.id);
  if (missedIfFound(inFlight.found(wf, r))) s.deps.health?.polledDone(r.id, wf);
}

/** A step's polls under way ({@link startPolls}). */
export interface StepPolls {
  /** What the refill sees of them. */
  polls: PollsUnderWay;
  /**
   * Resolves with the finished jobs they found once every poll is answered or, when `handOn` is
   * allowed, once {@link POLL_PATIENCE_MS} is over: the rest are handed on; rejects with their failure.
   */
  ended: () => Promise<JobRecord[]>;
}

/**
 * Starts the step's polls ({@link pollJobs}) beside its refill: each finished job joins `finished`
 * as its answer comes; the refill is woken at each find and at their end. `handOn`: the step's
 * inbox takes the daemon's memory of the batch's jobs (steady-poll.ts), so the polls still
 * unanswered after {@link POLL_PATIENCE_MS} are handed on to it, and a slow answer holds up no step.
 */
export function startPolls(s: Step, finished: JobRecord[], handOn: boolean): StepPolls {
  let onFound: (() => void) | undefined;
  let pending = true;
  let handed = false;
  const wake = (): void => {
    const w = onFound;
    onFound = undefined;
    w?.();
  };
  const found: JobRecord[] = [];
  const onFind = (r: JobRecord): void => {
    found.push(r);
    wake();
  };
  const done = pollJobs(s, { sink: finished, onFind, handedOn: () => handed });
  const over = (): void => {
    pending = false;
    wake();
  };
  done.then(over, over);
  const patient = handOn && s.req.poll.length > 0;
  const until = Date.now() + POLL_PATIENCE_MS;
  return {
    polls: { onFind: (w) => void (onFound = w), pending: () => pending && (!patient || Date.now() < until) },
    ended: async () => {
      if (patient) {
        let timer: NodeJS.Timeout | undefined;
        const patience = new Promise<void>((r) => (timer = setTimeout(r, Math.max(0, until - Date.now()))));
        await Promise.race([done, patience]).finally(() => clearTimeout(timer));
        handed = pending;
        over();
      } else await done;
      return found;
    },
  };
}

/** The lines a retry-failed run reads (its subset); every line otherwise. */
export const keepOf = async (store: ObjectStore, req: StepRequest) =>
  req.subset ? (await subsetOf(store, req.run)).has : undefined;
