import { activityInfo, CompleteAsyncError, Context } from '@temporalio/activity';
import {
  isTerminal,
  type InputLine,
  type JobRecord,
  type JobSubmission,
  type Policy,
  type RemoteOutcome,
  type S3Config,
} from '../../contracts';
import { parseLine } from '../batch/input';
import { batchInput, isS3Location } from '../../results/batch/locations';
import { isPlatformApiError, type QueueClient } from '../../platform-api';
import { type CompletionHub } from '../../results/completion-hub';
import { fatal, FailureType, notDone, toFailure } from '../errors';
import { noopMetrics, type ActivityMetrics } from '../../common/metrics';
import { idempotencyKey, streamKey, submitJournalKey, type RunScope } from '../../contracts/names';
import { toOutcome } from '../../results/outcome';
import { isStoreError } from '../../results/errors';
import { type ObjectStore } from '../../results/store/object-store';
import { countedQueue } from '../service-calls';

/** What the activities need; injected by the daemon (and by tests). */
export interface ActivityDeps {
  queue: Pick<QueueClient, 'run' | 'runSync' | 'status' | 'stream' | 'cancel' | 'retry' | 'health'>;
  store: ObjectStore;
  /** Needed for webhook completion; without it, webhook mode falls back to polling. */
  hub?: CompletionHub;
  metrics?: ActivityMetrics;
}

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

/** Identifies one run of a remote job (a `/retry` starts a new run of the same id). */
export interface RunRef extends RunScope {
  endpointId: string;
  remoteJobId: string;
  retries: number;
  inlineLimit: number;
}

/** The job activities, bound to their dependencies. */
export function createJobActivities(deps: ActivityDeps) {
  const metrics = deps.metrics ?? noopMetrics;
  const queue = countedQueue(deps.queue, metrics);
  const { store } = deps;

  /** 404 on a job: the job expired (ttl) if the endpoint is still there, else the endpoint is gone. */
  async function explain404(endpointId: string, remoteJobId: string): Promise<never> {
    try {
      await queue.health(endpointId);
    } catch (err) {
      if (isPlatformApiError(err, 'NOT_FOUND'))
        throw fatal(FailureType.ENDPOINT_NOT_FOUND, `endpoint ${endpointId} not found`, { endpointId });
      throw toFailure(err);
    }
    throw fatal(FailureType.JOB_EXPIRED, `job ${remoteJobId} no longer exists on the service (its ttl expired)`, {
      endpointId,
      remoteJobId,
    });
  }

  async function status(ref: RunRef): Promise<JobRecord> {
    try {
      return await queue.status(ref.endpointId, ref.remoteJobId);
    } catch (err) {
      if (isPlatformApiError(err, 'NOT_FOUND')) return explain404(ref.endpointId, ref.remoteJobId);
      throw toFailure(err);
    }
  }

  const finished = (record: JobRecord, ref: RunRef, via: RemoteOutcome['via']): Promise<RemoteOutcome> =>
    toOutcome(record, { ...ref, store, via, metrics });

  return {
    /**
     * Submits the job (`/run`, or `/runsync` for short jobs). The answer is journaled in the
     * results store before the activity returns, so a retry of this activity after a crash
     * returns the same remote job instead of creating a second one.
     */
    async submitJob(a: SubmitArgs): Promise<SubmitResult> {
      const journal = submitJournalKey(a, a.attempt);
      const known = (await store.find(journal)) as SubmitResult | undefined;
      if (known) return known;
      const body: JobSubmission = a.line ? await lineBody(a.line) : { input: a.input };
      if (a.policy) body.policy = a.policy;
      if (a.s3Config) body.s3Config = a.s3Config;
      if (a.webhook && deps.hub) body.webhook = deps.hub.webhookUrl(a, a.inlineLimit);
      // A repeated submission of this attempt answers the first job (on services that honour the key).
      const key = idempotencyKey(`${a.workflowId}/${a.runId}`, 0, a.attempt);
      let result: SubmitResult;
      try {
        if (a.syncWaitMs > 0) {
          const record = await queue.runSync(a.endpointId, body, { waitMs: a.syncWaitMs, idempotencyKey: key });
          result = { remoteJobId: record.id };
          if (isTerminal(record.status)) {
            result.outcome = await finished(
              record,
              { ...a, remoteJobId: record.id, retries: 0, inlineLimit: a.inlineLimit },
              'runsync',
            );
          }
        } else {
          result = { remoteJobId: (await queue.run(a.endpointId, body, { idempotencyKey: key })).id };
        }
      } catch (err) {
        if (isPlatformApiError(err, 'NOT_FOUND'))
          throw fatal(FailureType.ENDPOINT_NOT_FOUND, `endpoint ${a.endpointId} not found`, {
            endpointId: a.endpointId,
          });
        throw toFailure(err);
      }
      // Written once: a concurrent attempt of this activity that journaled first is the answer.
      if (!(await store.create(journal, result))) return (await store.get(journal)) as SubmitResult;
      return result;
    },

    /**
     * Webhook mode: completes asynchronously when the service calls the daemon's webhook (or the
     * daemon's fallback poll sees the job finish). Checks nothing over HTTP itself.
     */
    async awaitCompletion(ref: RunRef): Promise<RemoteOutcome> {
      if (!deps.hub)
        return status(ref).then((r) =>
          isTerminal(r.status) ? finished(r, ref, 'poll') : Promise.reject(notDone(`job is ${r.status}`)),
        );
      const info = activityInfo();
      const early = deps.hub.register({ ...ref, activityId: info.activityId, taskToken: info.taskToken });
      if (early) return early;
      throw new CompleteAsyncError();
    },

    /** Poll mode: one `/status`; not finished yet is a benign failure Temporal retries with backoff. */
    async pollCompletion(ref: RunRef): Promise<RemoteOutcome> {
      const record = await status(ref);
      if (isTerminal(record.status)) return finished(record, ref, 'poll');
      // Progress of a running job is visible as the pending activity's heartbeat details.
      Context.current().heartbeat({ status: record.status, progress: record.output });
      throw notDone(`job ${ref.remoteJobId} is ${record.status}`);
    },

    /**
     * Drains `/stream` into the results store until the job finishes. The chunks of each answer
     * are appended as one group (durable) before the count is heartbeated; a restarted drain
     * resumes from what the store holds (the service never sends a chunk twice).
     */
    async drainStream(ref: RunRef): Promise<RemoteOutcome> {
      const ctx = Context.current();
      const key = streamKey(ref, ref.remoteJobId, ref.retries);
      let count = (await store.tail(key)).lines.length;
      for (;;) {
        ctx.heartbeat({ chunks: count });
        let answer;
        try {
          answer = await queue.stream(ref.endpointId, ref.remoteJobId, { signal: ctx.cancellationSignal });
        } catch (err) {
          if (isPlatformApiError(err, 'NOT_FOUND')) return explain404(ref.endpointId, ref.remoteJobId);
          throw toFailure(err);
        }
        if (answer.stream.length > 0) {
          await store.append(key, answer.stream);
          count += answer.stream.length;
        }
        ctx.heartbeat({ chunks: count });
        if (answer.stream.length > 0) continue;
        const done = answer.status !== undefined ? isTerminal(answer.status) : isTerminal((await status(ref)).status);
        if (done) break;
        // Services that do not hold an empty /stream request get a short pause instead of a spin.
        if (answer.status === undefined) await ctx.sleep(500);
      }
      const outcome = await finished(await status(ref), ref, 'stream');
      outcome.streamChunks = count;
      if (count > 0) outcome.streamRef = await store.ref(key);
      return outcome;
    },

    /** `/retry` of a FAILED/TIMED_OUT job; refused (expired, wrong state) means: resubmit. */
    async retryRemoteJob(ref: Pick<RunRef, 'endpointId' | 'remoteJobId'>): Promise<void> {
      try {
        await queue.retry(ref.endpointId, ref.remoteJobId);
      } catch (err) {
        if (isPlatformApiError(err, 'NOT_FOUND') || isPlatformApiError(err, 'BAD_REQUEST')) {
          throw fatal(FailureType.RETRY_REFUSED, `retry of ${ref.remoteJobId} refused: ${(err as Error).message}`, {
            ...ref,
          });
        }
        throw toFailure(err);
      }
    },

    /** `/cancel` of the remote job; a job already gone counts as cancelled. */
    async cancelRemoteJob(ref: Pick<RunRef, 'endpointId' | 'remoteJobId'>): Promise<string> {
      try {
        return (await queue.cancel(ref.endpointId, ref.remoteJobId)).status;
      } catch (err) {
        if (isPlatformApiError(err, 'NOT_FOUND')) return 'GONE';
        throw toFailure(err);
      }
    },
  };
}

export type JobActivities = ReturnType<typeof createJobActivities>;

/** The submission body of an input line (the batch's reading rules); a line that is no job is a bad request. */
async function lineBody(line: InputLine): Promise<JobSubmission> {
  let text: string;
  try {
    text = await batchInput(line.source).readLineAt(line.offset, line.length);
  } catch (err) {
    // Network and permission errors of an s3:// input are retried; a missing input is not.
    if (isS3Location(line.source) && !isStoreError(err)) throw toFailure(err);
    throw fatal(
      FailureType.BAD_REQUEST,
      `input line ${line.index + 1} of ${line.source} cannot be read: ${(err as Error).message}`,
      { source: line.source },
    );
  }
  const p = parseLine(text, line.format, line.policy);
  if ('bad' in p) throw fatal(FailureType.BAD_REQUEST, `line ${line.index + 1}: ${p.bad}`, { source: line.source });
  return p.body;
}
