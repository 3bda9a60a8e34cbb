/**
 * The job activities (the job workflow's I/O), each a named step over the shared `JobIo`
 * (./calls.ts): submit (journaled), wait for the webhook, poll, drain a stream, `/retry`, `/cancel`.
 * The keys of `createJobActivities` are the activity names recorded in history.
 */
import { activityInfo, CompleteAsyncError, Context } from '@temporalio/activity';
import {
  isTerminal,
  type InputLine,
  type JobSubmission,
  type Policy,
  type RemoteOutcome,
  type S3Config,
} from '../../contracts';
import { idempotencyKey, streamKey, submitJournalKey, type RunScope } from '../../contracts/names';
import { retryApplied } from '../../contracts/retry-rule';
import { isPlatformApiError } from '../../platform-api';
import { fatal, FailureType, notDone, toFailure } from '../errors';
import { explain404, finished, jobIo, lineBody, statusOf, type ActivityDeps, type JobIo, type RunRef } from './calls';

export type { ActivityDeps, RunRef } from './calls';

export interface SubmitArgs extends RunScope {
  /** Attempt number of the workflow: one remote job per (run, attempt). */
  attempt: number;
  endpointId: string;
  input: Record<string, unknown>;
  policy?: Policy;
  s3Config?: S3Config;
  /** The input is this line of a file (a batch's child job): read here, never in history. */
  line?: InputLine;
  webhook: boolean;
  syncWaitMs: number;
  inlineLimit: number;
}

export interface SubmitResult {
  remoteJobId: string;
  /** Present when `/runsync` already saw the job finish. */
  outcome?: RemoteOutcome;
}

/** The job activities, bound to their dependencies. */
export function createJobActivities(deps: ActivityDeps) {
  const io = jobIo(deps);
  return {
    submitJob: (a: SubmitArgs): Promise<SubmitResult> => submitJob(io, a),
    awaitCompletion: (ref: RunRef): Promise<RemoteOutcome> => awaitCompletion(io, ref),
    pollCompletion: (ref: RunRef): Promise<RemoteOutcome> => pollCompletion(io, ref),
    drainStream: (ref: RunRef): Promise<RemoteOutcome> => drainStream(io, ref),
    retryRemoteJob: (ref: Pick<RunRef, 'endpointId' | 'remoteJobId'>): Promise<void> => retryRemoteJob(io, ref),
    cancelRemoteJob: (ref: Pick<RunRef, 'endpointId' | 'remoteJobId'>): Promise<string> => cancelRemoteJob(io, ref),
  };
}

export type JobActivities = ReturnType<typeof createJobActivities>;

/**
 * Submits the job (`/run`, or `/runsync` for short jobs). The answer is journaled in the results
 * store before the activity returns, so a retry of this activity after a crash returns the same
 * remote job instead of creating a second one.
 */
async function submitJob(io: JobIo, a: SubmitArgs): Promise<SubmitResult> {
  const journal = submitJournalKey(a, a.attempt);
  const known = (await io.store.find(journal)) as SubmitResult | undefined;
  if (known) return known;
  const body: JobSubmission = a.line ? await lineBody(a.line, io.roots) : { input: a.input };
  if (a.policy) body.policy = a.policy;
  if (a.s3Config) body.s3Config = a.s3Config;
  if (a.webhook && io.hub)
    body.webhook = io.hub.webhookUrl(a, a.endpointId, a.attempt, a.inlineLimit, body.policy?.ttl);
  const result = await submitOnce(io, a, body);
  // Written once: a concurrent attempt of this activity that journaled first is the answer.
  if (!(await io.store.create(journal, result))) return (await io.store.get(journal)) as SubmitResult;
  return result;
}

/** One `/run` or `/runsync` of the body; a missing endpoint is final. */
async function submitOnce(io: JobIo, a: SubmitArgs, body: JobSubmission): Promise<SubmitResult> {
  // A repeated submission of this attempt answers the first job (on services that honour the key).
  const key = idempotencyKey(`${a.workflowId}/${a.runId}`, 0, a.attempt);
  try {
    if (a.syncWaitMs <= 0) return { remoteJobId: (await io.queue.run(a.endpointId, body, { idempotencyKey: key })).id };
    const record = await io.queue.runSync(a.endpointId, body, { waitMs: a.syncWaitMs, idempotencyKey: key });
    const result: SubmitResult = { remoteJobId: record.id };
    if (isTerminal(record.status)) {
      const ref = { ...a, remoteJobId: record.id, retries: 0, inlineLimit: a.inlineLimit };
      result.outcome = await finished(io, record, ref, 'runsync');
    }
    return result;
  } catch (err) {
    if (isPlatformApiError(err, 'NOT_FOUND'))
      throw fatal(FailureType.ENDPOINT_NOT_FOUND, `endpoint ${a.endpointId} not found`, { endpointId: a.endpointId });
    throw toFailure(err);
  }
}

/**
 * Webhook mode: completes asynchronously when the service calls the daemon's webhook (or the
 * daemon's fallback poll sees the job finish). Checks nothing over HTTP itself.
 */
async function awaitCompletion(io: JobIo, ref: RunRef): Promise<RemoteOutcome> {
  if (!io.hub)
    return statusOf(io, ref).then((r) =>
      isTerminal(r.status) ? finished(io, r, ref, 'poll') : Promise.reject(notDone(`job is ${r.status}`)),
    );
  const info = activityInfo();
  const early = io.hub.register({ ...ref, activityId: info.activityId, taskToken: info.taskToken });
  if (early) return early;
  throw new CompleteAsyncError();
}

/** Poll mode: one `/status`; not finished yet is a benign failure Temporal retries with backoff. */
async function pollCompletion(io: JobIo, ref: RunRef): Promise<RemoteOutcome> {
  const record = await statusOf(io, ref);
  if (isTerminal(record.status)) return finished(io, record, ref, 'poll');
  // Progress of a running job is visible as the pending activity's heartbeat details.
  Context.current().heartbeat({ status: record.status, progress: record.output });
  throw notDone(`job ${ref.remoteJobId} is ${record.status}`);
}

/**
 * Drains `/stream` into the results store until the job finishes. The chunks of each answer are
 * appended as one group (durable) before the count is heartbeated; a restarted drain resumes from
 * what the store holds (the service never sends a chunk twice).
 */
async function drainStream(io: JobIo, ref: RunRef): Promise<RemoteOutcome> {
  const ctx = Context.current();
  const key = streamKey(ref, ref.remoteJobId, ref.retries);
  let count = (await io.store.tail(key)).lines.length;
  for (;;) {
    ctx.heartbeat({ chunks: count });
    let answer;
    try {
      answer = await io.queue.stream(ref.endpointId, ref.remoteJobId, { signal: ctx.cancellationSignal });
    } catch (err) {
      if (isPlatformApiError(err, 'NOT_FOUND')) return explain404(io, ref.endpointId, ref.remoteJobId);
      throw toFailure(err);
    }
    if (answer.stream.length > 0) {
      await io.store.append(key, answer.stream);
      count += answer.stream.length;
    }
    ctx.heartbeat({ chunks: count });
    if (answer.stream.length > 0) continue;
    const done = answer.status !== undefined ? isTerminal(answer.status) : isTerminal((await statusOf(io, ref)).status);
    if (done) break;
    // Services that do not hold an empty /stream request get a short pause instead of a spin.
    if (answer.status === undefined) await ctx.sleep(500);
  }
  const outcome = await finished(io, await statusOf(io, ref), ref, 'stream');
  outcome.streamChunks = count;
  if (count > 0) outcome.streamRef = await io.store.ref(key);
  return outcome;
}

/** `/retry` of a FAILED/TIMED_OUT job; refused (expired, wrong state) means: resubmit. */
async function retryRemoteJob(io: JobIo, ref: Pick<RunRef, 'endpointId' | 'remoteJobId'>): Promise<void> {
  try {
    await io.queue.retry(ref.endpointId, ref.remoteJobId);
  } catch (err) {
    if (isPlatformApiError(err, 'BAD_REQUEST') && (await retriedAlready(io, ref))) return;
    if (isPlatformApiError(err, 'NOT_FOUND') || isPlatformApiError(err, 'BAD_REQUEST')) {
      throw fatal(FailureType.RETRY_REFUSED, `retry of ${ref.remoteJobId} refused: ${(err as Error).message}`, {
        ...ref,
      });
    }
    throw toFailure(err);
  }
}

/**
 * Whether a `/retry` refused as a repeat was applied by an earlier attempt of this activity (its
 * answer lost): the job left FAILED (the retry rule's `retryApplied`). A status that cannot be read
 * fails the activity (it is retried) rather than let the workflow resubmit a job that may run.
 */
async function retriedAlready(io: JobIo, ref: Pick<RunRef, 'endpointId' | 'remoteJobId'>): Promise<boolean> {
  try {
    return retryApplied((await io.queue.status(ref.endpointId, ref.remoteJobId)).status);
  } catch (err) {
    if (isPlatformApiError(err, 'NOT_FOUND')) return false;
    throw toFailure(err);
  }
}

/** `/cancel` of the remote job; a job already gone counts as cancelled. */
async function cancelRemoteJob(io: JobIo, ref: Pick<RunRef, 'endpointId' | 'remoteJobId'>): Promise<string> {
  try {
    return (await io.queue.cancel(ref.endpointId, ref.remoteJobId)).status;
  } catch (err) {
    if (isPlatformApiError(err, 'NOT_FOUND')) return 'GONE';
    throw toFailure(err);
  }
}
