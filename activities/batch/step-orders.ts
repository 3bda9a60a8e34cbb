/**
 * What a bulk step sends on the workflow's orders: retries (as the retry rule chose: `/retry` or a
 * new submission), new lines read (up to the room, the rest deferred), cancels; its polls of late
 * jobs are step-polls.ts. step.ts runs them in that order.
 */
import { type JobSubmission } from '../../contracts';
import { isPlatformApiError, type QueueClient } from '../../platform-api';
import { toFailure } from '../errors';
import { type ObjectStore } from '../../results/store/object-store';
import { keyOf } from './input';
import { type BatchInput } from '../../results/batch/locations';
import { type InFlightJobs } from './in-flight';
import { type WebhookHealth } from '../../results/webhook-health';
import { type PriorityBoard, type Standing } from './priority-board';
import { type BatchInbox } from '../../results/batch/inbox';
import { subsetOf } from '../../results/batch/rerun';
import { type SubmissionWebhooks, type Submitted, type Submitter } from './submitter';
import { type DetachedSubmissions, type StepSends } from './detached';
import { type LineRef, type StepRequest, type StepResult } from './types';

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

/** The lines a retry-failed run reads (its subset); every line otherwise. */
export const keepOf = async (store: ObjectStore, req: StepRequest) =>
  req.subset ? (await subsetOf(store, req.run)).has : undefined;
