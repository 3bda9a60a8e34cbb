import { z } from 'zod';
import { InputLine } from './input-line';
import { RETRY_DEFAULTS } from './defaults';
import { LIMITS } from './limits';
import { JobStatus, Policy, S3Config } from './queue';

/**
 * Wire shapes of the orchestrator: what crosses the Temporal boundary (workflow input, result,
 * query state, activity results). Plain JSON only; big outputs travel as references.
 */

function isRegExp(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

/** Remote terminal states a job workflow may retry. */
export const RetryableRemoteStatus = z.enum(['FAILED', 'TIMED_OUT']);

/** Retry of the remote job (not of HTTP calls, which activities retry on their own). */
export const JobRetryOptions = z.strictObject({
  /**
   * Total attempts including the first.
   * @default 3
   */
  maxAttempts: z.number().int().min(1).max(100).default(RETRY_DEFAULTS.maxAttempts),
  /**
   * Wait before the first retry.
   * @default 1000
   */
  initialBackoffMs: z.number().int().min(0).max(3_600_000).default(1000),
  /**
   * Growth of the wait per retry.
   * @default 2
   */
  backoffCoefficient: z.number().min(1).max(10).default(2),
  /**
   * Longest wait between attempts.
   * @default 60000
   */
  maxBackoffMs: z.number().int().min(0).max(86_400_000).default(60_000),
  /**
   * Terminal states that are retried.
   * @default ['FAILED', 'TIMED_OUT']
   */
  retryOn: z.array(RetryableRemoteStatus).default(['FAILED', 'TIMED_OUT']),
  /**
   * Error types never retried, like Temporal's `nonRetryableErrorTypes`: the stock worker SDK
   * reports a handler's exception class as `error_type` (`ValueError`, `mymodule.BadPrompt`); a
   * name matches the class or its dotted tail.
   * @default []
   */
  nonRetryableErrorTypes: z.array(z.string().min(1).max(200)).max(100).default([]),
  /**
   * Regular expressions (JavaScript syntax) over the job's error text: a match is never retried.
   * @default []
   */
  nonRetryableErrorPatterns: z
    .array(z.string().min(1).max(500).refine(isRegExp, { error: 'not a valid regular expression' }))
    .max(100)
    .default([]),
});
export type JobRetryOptions = z.infer<typeof JobRetryOptions>;

/** How the workflow learns that the remote job finished. */
export const CompletionMode = z.enum(['webhook', 'poll']);
export type CompletionMode = z.infer<typeof CompletionMode>;

export const PollingOptions = z.strictObject({
  /**
   * First interval between `/status` polls.
   * @default 1000
   */
  initialIntervalMs: z.number().int().min(100).max(600_000).default(1000),
  /**
   * Longest interval between polls.
   * @default 30000
   */
  maxIntervalMs: z.number().int().min(100).max(3_600_000).default(30_000),
  /**
   * Growth of the interval.
   * @default 1.5
   */
  backoffCoefficient: z.number().min(1).max(10).default(1.5),
});
export type PollingOptions = z.infer<typeof PollingOptions>;

/** Options of one job workflow; every field has a documented default. */
export const JobOptions = z.strictObject({
  retry: JobRetryOptions.default(JobRetryOptions.parse({})),
  /**
   * `webhook` (polling as fallback) or `poll` only.
   * @default 'webhook'
   */
  completion: CompletionMode.default('webhook'),
  polling: PollingOptions.default(PollingOptions.parse({})),
  /**
   * Drain `/stream` into the results store.
   * @default false
   */
  stream: z.boolean().default(false),
  /**
   * Submit with `/runsync?wait=` (short jobs: fewer calls); 0 uses `/run`.
   * @default 0
   */
  syncWaitMs: z.union([z.literal(0), z.number().int().min(1000).max(300_000)]).default(0),
  /**
   * Outputs larger than this (JSON bytes) go to the results store, not into history.
   * @default 65536 (64 KiB)
   */
  inlineOutputLimitBytes: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(64 * 1024),
  /**
   * Result retention the remote service applies after a `/run` job finishes.
   * @default 1800000 (30 min)
   */
  resultRetentionMs: z.number().int().min(0).default(LIMITS.retentionAsyncMs),
});
export type JobOptions = z.infer<typeof JobOptions>;
export type JobOptionsInput = z.input<typeof JobOptions>;

/** Input of the job workflow. */
export const JobWorkflowInput = z.strictObject({
  endpointId: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  policy: Policy.optional(),
  s3Config: S3Config.optional(),
  options: JobOptions.default(JobOptions.parse({})),
  /**
   * The input is this line of a file (a batch's child job, `--per-job-workflows`): the submission
   * reads it, so it stays out of history; `input` is then `{}`.
   */
  line: InputLine.optional(),
});
export type JobWorkflowInput = z.infer<typeof JobWorkflowInput>;
export type JobWorkflowInputInit = z.input<typeof JobWorkflowInput>;

/** A stored output: where it is and how big. */
export const OutputRef = z.strictObject({ store: z.string(), key: z.string(), bytes: z.number().int() });
export type OutputRef = z.infer<typeof OutputRef>;

/** How a remote job run ended: shared by outcomes, attempts and the workflow result. */
const runEnd = {
  status: JobStatus,
  error: z.string().optional(),
  /** The handler's exception class, when the worker reported one (the stock SDK's `error_type`). */
  errorType: z.string().optional(),
  /** Milliseconds, as the service reports them. */
  delayTime: z.number().optional(),
  executionTime: z.number().optional(),
};

/** What one remote job ended as (an activity result; small). */
export const RemoteOutcome = z.strictObject({
  remoteJobId: z.string(),
  ...runEnd,
  output: z.unknown().optional(),
  outputRef: OutputRef.optional(),
  /** Epoch ms at which the orchestrator saw the job finish. */
  observedAt: z.number(),
  via: z.enum(['webhook', 'poll', 'runsync', 'stream']),
  streamChunks: z.number().int().optional(),
  streamRef: OutputRef.optional(),
});
export type RemoteOutcome = z.infer<typeof RemoteOutcome>;

/** One attempt of the job: a remote job run (first submission, `/retry`, or resubmission). */
export const Attempt = z.strictObject({
  number: z.number().int(),
  remoteJobId: z.string(),
  how: z.enum(['submit', 'retry', 'resubmit']),
  ...runEnd,
  startedAt: z.number(),
  endedAt: z.number().optional(),
});
export type Attempt = z.infer<typeof Attempt>;

/** Result of the job workflow. */
export const JobWorkflowResult = z.strictObject({
  ...runEnd,
  output: z.unknown().optional(),
  outputRef: OutputRef.optional(),
  attempts: z.array(Attempt),
  streamChunks: z.number().int(),
  streamRef: OutputRef.optional(),
});
export type JobWorkflowResult = z.infer<typeof JobWorkflowResult>;

/** Live state of a job workflow (the `state` query). */
export const JobWorkflowState = z.strictObject({
  phase: z.enum(['submitting', 'waiting', 'retrying', 'backing-off', 'cancelling', 'done']),
  endpointId: z.string(),
  remoteJobId: z.string().optional(),
  status: JobStatus.optional(),
  attempt: z.number().int(),
  attempts: z.array(Attempt),
  streamChunks: z.number().int(),
});
export type JobWorkflowState = z.infer<typeof JobWorkflowState>;
