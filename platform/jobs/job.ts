/** A job as the engine holds it, its wire record, and its deadlines. */
import {
  type JobRecord,
  type JobStatus,
  type ResolvedPolicy,
  type S3Config,
  type StreamChunk,
  type TakenJob,
} from '../../contracts';

/** A job as the engine holds it. Times are epoch milliseconds of the platform clock. */
export interface Job {
  id: string;
  endpointId: string;
  userId: string;
  status: JobStatus;
  /** Submitted through `/runsync`: shorter result retention. */
  sync: boolean;
  input: unknown;
  webhook?: string;
  policy: ResolvedPolicy;
  s3Config?: S3Config;
  submittedAt: number;
  /** When the job last entered the queue (submission or retry); delayTime counts from here. */
  queuedAt: number;
  startedAt?: number;
  completedAt?: number;
  /** submittedAt + ttl: the job is deleted at this time whatever its state. */
  ttlDeadline: number;
  /** Set on completion: the job (and its result) is deleted at this time. */
  retentionUntil?: number;
  /** `undefined` means "no output key"; `null` is a real output. */
  output?: unknown;
  error?: unknown;
  /** Latest `progress_update` output while IN_PROGRESS. */
  progress?: unknown;
  workerId?: string;
  retries: number;
  /** The `Idempotency-Key` it was submitted with: a repeat of it (same user and endpoint) answers this job. */
  idempotencyKey?: string;
  /** Chunks not yet handed out by `/stream`, each delivered once. */
  pendingChunks: StreamChunk[];
  /** Sequence number of the next chunk a worker appends (persistence key). */
  chunkSeq: number;
}

/** The wire record of a job: what status, runsync, webhooks and cancel return. */
export function toRecord(job: Job): JobRecord {
  const record: JobRecord = { id: job.id, status: job.status };
  if (job.startedAt !== undefined) record.delayTime = job.startedAt - job.queuedAt;
  if (job.completedAt !== undefined && job.startedAt !== undefined)
    record.executionTime = job.completedAt - job.startedAt;
  if (job.status === 'IN_PROGRESS') {
    if (job.progress !== undefined) record.output = job.progress;
  } else if (job.output !== undefined) {
    record.output = job.output;
  }
  if (job.error !== undefined) record.error = job.error;
  if (job.workerId !== undefined) record.workerId = job.workerId;
  if (job.retries > 0) record.retries = job.retries;
  return record;
}

/** The job as a worker receives it from `job-take`. */
export function toTakenJob(job: Job): TakenJob {
  const taken: TakenJob = { id: job.id, input: job.input, policy: job.policy };
  if (job.webhook !== undefined) taken.webhook = job.webhook;
  if (job.s3Config !== undefined) taken.s3Config = job.s3Config;
  return taken;
}

/** Every time at which the sweeper must look at the job: ttl, end of retention, executionTimeout. */
export function deadlinesOf(job: Job): number[] {
  const at = [job.ttlDeadline];
  if (job.retentionUntil !== undefined) at.push(job.retentionUntil);
  if (job.status === 'IN_PROGRESS' && job.startedAt !== undefined) at.push(job.startedAt + job.policy.executionTimeout);
  return at;
}
