import {
  type ActivityOptions,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  defineQuery,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import { LIMITS } from '../contracts/limits';
import {
  FailureType,
  JOB_END_FAILURE,
  JOB_PATCHES,
  JOB_QUERIES,
  NON_RETRYABLE,
  awaitActivityId,
  drainActivityId,
} from '../contracts/names';
import { ACTIVITY_RETRY, RESULT_GONE, decideRetry, retainedUntil, retryOrResubmit } from '../contracts/retry-rule';
import type { Attempt, JobWorkflowInput, JobWorkflowResult, JobWorkflowState, RemoteOutcome } from '../contracts/job';
import type { JobActivities, RunRef } from '../activities/job/activities';

/** Query of a job workflow's live state. */
export const stateQuery = defineQuery<JobWorkflowState>(JOB_QUERIES.state);

const short = proxyActivities<JobActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { ...ACTIVITY_RETRY, maximumAttempts: 20 },
});

/**
 * One remote job, durably: submit, wait for completion (webhook with polling fallback, or
 * polling), drain its stream, retry FAILED/TIMED_OUT (with `/retry` while the result is
 * retained, else by resubmitting: the retry rule, contracts/retry-rule.ts), and cancel the remote
 * job when the workflow is cancelled. About 17 history events for a job that completes the first time.
 */
export async function jobWorkflow(input: JobWorkflowInput): Promise<JobWorkflowResult> {
  const o = input.options;
  const { workflowId, firstExecutionRunId: runId } = workflowInfo();
  const state: JobWorkflowState = {
    phase: 'submitting',
    endpointId: input.endpointId,
    attempt: 0,
    attempts: [],
    streamChunks: 0,
  };
  setHandler(stateQuery, () => state);
  const j: JobRun = { input, workflowId, runId, state };
  const waitFor = waiter(o);
  try {
    for (let n = 1; ; n++) {
      state.attempt = n;
      const startedAt = Date.now();
      const started = await startAttempt(j, n);
      const remote = j.remote!;
      state.remoteJobId = remote.id;
      state.status = 'IN_QUEUE';
      state.phase = 'waiting';
      const outcome =
        started.outcome ??
        (await waitFor({
          workflowId,
          runId,
          endpointId: input.endpointId,
          remoteJobId: remote.id,
          retries: remote.retries,
          inlineLimit: o.inlineOutputLimitBytes,
        }));
      j.last = outcome;
      state.status = outcome.status;
      state.streamChunks += outcome.streamChunks ?? 0;
      state.attempts.push(attemptOf(n, started.how, startedAt, outcome));
      const next = decideRetry(o.retry, outcome, n);
      if (!next.retry) break;
      state.phase = 'backing-off';
      await sleep(next.delayMs);
    }
  } catch (err) {
    if (isCancellation(err) && j.remote) {
      state.phase = 'cancelling';
      const ref = { endpointId: input.endpointId, remoteJobId: j.remote.id };
      await CancellationScope.nonCancellable(() => short.cancelRemoteJob(ref));
      state.status = 'CANCELLED';
    }
    throw err;
  }
  state.phase = 'done';
  return ended(resultOf(j.last!, state));
}

/** The job as the workflow holds it: the remote job of the current attempt and the last outcome seen. */
interface JobRun {
  input: JobWorkflowInput;
  workflowId: string;
  runId: string;
  state: JobWorkflowState;
  /** The remote job of the current attempt (`sync`: submitted with `/runsync`, retained 1 min). */
  remote?: { id: string; retries: number; sync: boolean };
  last?: RemoteOutcome;
}

/**
 * Starts attempt `n`: `/retry` of the last remote job while its result is retained (the retry
 * rule), else (or when `/retry` is refused) a submission, never cancelled half-way (the remote job
 * id must be known to cancel the job). The outcome comes back when the submission already knows it (`/runsync`).
 */
async function startAttempt(j: JobRun, n: number): Promise<{ how: Attempt['how']; outcome?: RemoteOutcome }> {
  const { input, state } = j;
  const o = input.options;
  let how: Attempt['how'] = n === 1 ? 'submit' : 'resubmit';
  const retention = j.remote?.sync ? LIMITS.retentionSyncMs : o.resultRetentionMs;
  const until = j.remote && j.last ? retainedUntil(j.last.observedAt, retention) : RESULT_GONE;
  if (j.remote && retryOrResubmit(Date.now(), until) === 'retry') {
    state.phase = 'retrying';
    try {
      await CancellationScope.nonCancellable(() =>
        short.retryRemoteJob({ endpointId: input.endpointId, remoteJobId: j.remote!.id }),
      );
      j.remote = { ...j.remote, retries: j.remote.retries + 1 };
      how = 'retry';
    } catch (err) {
      if (!(
        err instanceof ActivityFailure &&
        err.cause instanceof ApplicationFailure &&
        err.cause.type === FailureType.RETRY_REFUSED
      ))
        throw err;
      j.remote = undefined;
    }
  } else {
    j.remote = undefined;
  }
  if (j.remote) return { how };
  state.phase = 'submitting';
  const submitted = await CancellationScope.nonCancellable(() =>
    short.submitJob({
      workflowId: j.workflowId,
      runId: j.runId,
      attempt: n,
      endpointId: input.endpointId,
      input: input.input,
      policy: input.policy,
      s3Config: input.s3Config,
      ...(input.line ? { line: input.line } : {}),
      webhook: o.completion === 'webhook' && !o.stream,
      syncWaitMs: o.stream ? 0 : o.syncWaitMs,
      inlineLimit: o.inlineOutputLimitBytes,
    }),
  );
  j.remote = { id: submitted.remoteJobId, retries: 0, sync: o.syncWaitMs > 0 && !o.stream };
  return submitted.outcome ? { how, outcome: submitted.outcome } : { how };
}

/**
 * The wait for a remote job's end: the webhook wait (with a fixed activity id, `await/<job>/<retries>`,
 * by which the webhook receiver completes it), polling, or the stream's drain.
 */
function waiter(o: JobWorkflowInput['options']): (ref: RunRef) => Promise<RemoteOutcome> {
  const polling = o.completion === 'poll' && !o.stream;
  const waitOptions: ActivityOptions = {
    startToCloseTimeout: '7 days',
    // Webhook waits and stream drains are kept alive by heartbeats, so a dead daemon is noticed.
    heartbeatTimeout: polling ? undefined : '30 seconds',
    retry: polling
      ? {
          initialInterval: o.polling.initialIntervalMs,
          backoffCoefficient: o.polling.backoffCoefficient,
          maximumInterval: o.polling.maxIntervalMs,
          nonRetryableErrorTypes: [...NON_RETRYABLE],
        }
      : ACTIVITY_RETRY,
  };
  return (ref) => {
    // Only the webhook wait may be completed from outside (by id); a drain must never be.
    const activityId = (o.stream ? drainActivityId : awaitActivityId)(ref.remoteJobId, ref.retries);
    const acts = proxyActivities<JobActivities>({ ...waitOptions, activityId });
    if (o.stream) return acts.drainStream(ref);
    return polling ? acts.pollCompletion(ref) : acts.awaitCompletion(ref);
  };
}

/** The workflow's end: a COMPLETED job's result, else a failure carrying the whole result. */
function ended(result: JobWorkflowResult): JobWorkflowResult {
  // Workflows started before this change keep returning the result (patched() is false on their replay).
  if (result.status === 'COMPLETED' || !patched(JOB_PATCHES.failedJobFailsWorkflow)) return result;
  // Temporal's status tells the outcome: a job that did not complete fails its workflow; the
  // failure carries the whole result (attempts, last error) for `sluice result` and the library.
  const type = JOB_END_FAILURE[result.status as keyof typeof JOB_END_FAILURE] ?? FailureType.JOB_FAILED;
  const n = result.attempts.length;
  throw ApplicationFailure.create({
    type,
    nonRetryable: true,
    details: [result],
    message: `job ended ${result.status} after ${n} attempt${n === 1 ? '' : 's'}${result.error ? `: ${result.error.slice(0, 500)}` : ''}`,
  });
}

function attemptOf(n: number, how: Attempt['how'], startedAt: number, o: RemoteOutcome): Attempt {
  const a: Attempt = { number: n, remoteJobId: o.remoteJobId, how, status: o.status, startedAt, endedAt: Date.now() };
  if (o.error !== undefined) a.error = o.error;
  if (o.errorType !== undefined) a.errorType = o.errorType;
  if (o.delayTime !== undefined) a.delayTime = o.delayTime;
  if (o.executionTime !== undefined) a.executionTime = o.executionTime;
  return a;
}

function resultOf(o: RemoteOutcome, state: JobWorkflowState): JobWorkflowResult {
  const r: JobWorkflowResult = { status: o.status, attempts: state.attempts, streamChunks: state.streamChunks };
  if (o.output !== undefined) r.output = o.output;
  if (o.outputRef) r.outputRef = o.outputRef;
  if (o.error !== undefined) r.error = o.error;
  if (o.errorType !== undefined) r.errorType = o.errorType;
  if (o.delayTime !== undefined) r.delayTime = o.delayTime;
  if (o.executionTime !== undefined) r.executionTime = o.executionTime;
  if (o.streamRef) r.streamRef = o.streamRef;
  return r;
}
