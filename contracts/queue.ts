import { z } from 'zod';
import { LIMITS } from './limits';

/** The six job states of the spec. */
export const JobStatus = z.enum(['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);
export type JobStatus = z.infer<typeof JobStatus>;

/** States after which a job never changes again (unless retried). */
export const TERMINAL_STATUSES: readonly JobStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];
export const isTerminal = (s: JobStatus): boolean => TERMINAL_STATUSES.includes(s);
/** States `/retry` accepts. */
export const RETRYABLE_STATUSES: readonly JobStatus[] = ['FAILED', 'TIMED_OUT'];

const intMs = (name: string, min: number, max: number) =>
  z
    .number({ error: `${name} must be a number of milliseconds` })
    .int({ error: `${name} must be an integer number of milliseconds` })
    .min(min, { error: `${name} must be at least ${min} ms` })
    .max(max, { error: `${name} must be at most ${max} ms` });

/** Execution policy of a job; every field optional on the wire, defaults applied by {@link resolvePolicy}. */
export const Policy = z.strictObject({
  executionTimeout: intMs(
    'policy.executionTimeout',
    LIMITS.executionTimeoutMinMs,
    LIMITS.executionTimeoutMaxMs,
  ).optional(),
  lowPriority: z.boolean({ error: 'policy.lowPriority must be a boolean' }).optional(),
  ttl: intMs('policy.ttl', LIMITS.ttlMinMs, LIMITS.ttlMaxMs).optional(),
});
export type Policy = z.infer<typeof Policy>;
export type ResolvedPolicy = Required<Policy>;

export const resolvePolicy = (p: Policy | undefined): ResolvedPolicy => ({
  executionTimeout: p?.executionTimeout ?? LIMITS.executionTimeoutDefaultMs,
  lowPriority: p?.lowPriority ?? false,
  ttl: p?.ttl ?? LIMITS.ttlDefaultMs,
});

/** A job's `ttl` as accepted on `GET /status?ttl=`. */
export const TtlMs = intMs('ttl', LIMITS.ttlMinMs, LIMITS.ttlMaxMs);

export const S3Config = z.strictObject({
  accessId: z.string(),
  accessSecret: z.string(),
  bucketName: z.string(),
  endpointUrl: z.string(),
});
export type S3Config = z.infer<typeof S3Config>;

/**
 * Headers of the platform's idempotency extension of `/run` and `/runsync` (the service ignores
 * them): the key a client sends, and the answer's mark that it repeated one (no job created).
 */
export const IDEMPOTENCY_HEADERS = { key: 'idempotency-key', replayed: 'idempotent-replayed' } as const;

/** Body of `/run` and `/runsync`. */
export const JobSubmission = z.object({
  input: z.record(z.string(), z.unknown(), { error: 'input is required and must be a JSON object' }),
  webhook: z.url({ protocol: /^https?$/, error: 'webhook must be an http(s) URL' }).optional(),
  policy: Policy.optional(),
  s3Config: S3Config.optional(),
});
export type JobSubmission = z.infer<typeof JobSubmission>;

/** The job record returned by status, run, runsync, cancel and retry. Times are milliseconds. */
export const JobRecord = z.looseObject({
  id: z.string(),
  status: JobStatus,
  delayTime: z.number().optional(),
  executionTime: z.number().optional(),
  output: z.unknown().optional(),
  error: z.unknown().optional(),
  workerId: z.string().optional(),
  retries: z.number().optional(),
});
export type JobRecord = z.infer<typeof JobRecord>;

/** `{id, status}` answers of `/run`, `/cancel`, `/retry`. */
export const JobAck = z.looseObject({ id: z.string(), status: JobStatus });
export type JobAck = z.infer<typeof JobAck>;

export const StreamChunk = z.looseObject({
  output: z.unknown(),
  metrics: z.record(z.string(), z.unknown()).optional(),
});
export type StreamChunk = z.infer<typeof StreamChunk>;

/** `/stream` answer: the spec's chunk array inside the envelope the official clients parse. */
export const StreamResponse = z.looseObject({
  id: z.string().optional(),
  status: JobStatus,
  stream: z.array(StreamChunk),
});
export type StreamResponse = z.infer<typeof StreamResponse>;

export const Health = z.looseObject({
  jobs: z.looseObject({
    completed: z.number().int(),
    failed: z.number().int(),
    inProgress: z.number().int(),
    inQueue: z.number().int(),
    retried: z.number().int(),
  }),
  workers: z.looseObject({
    idle: z.number().int(),
    running: z.number().int(),
    initializing: z.number().int().optional(),
    ready: z.number().int().optional(),
    throttled: z.number().int().optional(),
    unhealthy: z.number().int().optional(),
  }),
});
export type Health = z.infer<typeof Health>;

export const PurgeResult = z.looseObject({ removed: z.number().int(), status: z.literal('completed') });
export type PurgeResult = z.infer<typeof PurgeResult>;

/** Every error body of the platform: `{ "error": "<what is wrong>" }`. */
export const ErrorBody = z.looseObject({ error: z.string() });
export type ErrorBody = z.infer<typeof ErrorBody>;
