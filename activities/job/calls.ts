/**
 * What the job activities (./activities.ts) share: the counted queue client and the store
 * (`JobIo`), a job's status with a 404 explained (expired job or missing endpoint), the outcome
 * record of a finished job, and the submission body of a batch's input line.
 */
import { type InputLine, type JobRecord, type JobSubmission, type RemoteOutcome, type RunScope } from '../../contracts';
import { isPlatformApiError } from '../../platform-api';
import { noopMetrics, type ActivityMetrics } from '../../common/metrics';
import { openedInput, isS3Location } from '../../results/batch/locations';
import { batchLocationRefusal, type BatchRoots } from '../../results/batch/roots';
import { type CompletionHub } from '../../results/completion-hub';
import { isStoreError } from '../../results/errors';
import { toOutcome } from '../../results/outcome';
import { type ObjectStore } from '../../results/store/object-store';
import { parseLine } from '../batch/input';
import { fatal, FailureType, toFailure } from '../errors';
import { countedQueue, type QueueMethods } from '../service-calls';

/** What the activities need; injected by the daemon (and by tests). */
export interface ActivityDeps {
  queue: QueueMethods;
  store: ObjectStore;
  /** Needed for webhook completion; without it, webhook mode falls back to polling. */
  hub?: CompletionHub;
  metrics?: ActivityMetrics;
  /** Where a batch's input lines may be read (SLUICE_BATCH_ROOTS); without it, anywhere. */
  roots?: BatchRoots;
}

/** The dependencies as the activities use them: every queue call counted. */
export interface JobIo {
  queue: QueueMethods;
  store: ObjectStore;
  hub?: CompletionHub;
  metrics: ActivityMetrics;
  roots?: BatchRoots;
}

export function jobIo(deps: ActivityDeps): JobIo {
  const metrics = deps.metrics ?? noopMetrics;
  return {
    queue: countedQueue(deps.queue, metrics),
    store: deps.store,
    metrics,
    ...(deps.hub ? { hub: deps.hub } : {}),
    ...(deps.roots ? { roots: deps.roots } : {}),
  };
}

/** Identifies one run of a remote job (a `/retry` starts a new run of the same id). */
export interface RunRef extends RunScope {
  endpointId: string;
  remoteJobId: string;
  retries: number;
  inlineLimit: number;
}

/** 404 on a job: the job expired (ttl) if the endpoint is still there, else the endpoint is gone. */
export async function explain404(io: JobIo, endpointId: string, remoteJobId: string): Promise<never> {
  try {
    await io.queue.health(endpointId);
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

/** One `/status` of the run's job. */
export async function statusOf(io: JobIo, ref: RunRef): Promise<JobRecord> {
  try {
    return await io.queue.status(ref.endpointId, ref.remoteJobId);
  } catch (err) {
    if (isPlatformApiError(err, 'NOT_FOUND')) return explain404(io, ref.endpointId, ref.remoteJobId);
    throw toFailure(err);
  }
}

/** The outcome record of a finished job (a big output written to the store), counted. */
export const finished = (
  io: JobIo,
  record: JobRecord,
  ref: RunRef,
  via: RemoteOutcome['via'],
): Promise<RemoteOutcome> => toOutcome(record, { ...ref, store: io.store, via, metrics: io.metrics });

/** The submission body of an input line (the batch's reading rules); a line that is no job is a bad request. */
export async function lineBody(line: InputLine, roots?: BatchRoots): Promise<JobSubmission> {
  // A per-job child reads its line from the batch's input: only where batches may read.
  const refusal = roots && batchLocationRefusal({ source: line.source }, roots);
  if (refusal) throw fatal(FailureType.BAD_REQUEST, refusal, { source: line.source });
  let text: string;
  try {
    text = await openedInput(line.source).readLineAt(line.offset, line.length);
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
