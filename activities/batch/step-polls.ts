/**
 * A bulk step's polls of the jobs the workflow ordered polled (late jobs, the workflow's fallback, a
 * dead daemon's jobs after a restart): run in lanes beside the step's refill, each find freeing its
 * slot as it comes; with the daemon's memory of the batch's jobs, those still unanswered after a
 * while are handed on to it, so a slow answer holds up neither the window nor the step.
 */
import { isTerminal, type JobRecord } from '../../contracts';
import { isPlatformApiError } from '../../platform-api';
import { toFailure } from '../errors';
import { type PollsUnderWay } from './collect';
import { beat } from '../heartbeat';
import { missedIfFound, type InFlightJobs } from './in-flight';
import { type Step } from './step-orders';

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
