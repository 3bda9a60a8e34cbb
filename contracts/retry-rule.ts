/**
 * The retry rule of a remote job, once for every orchestration: whether a finished run is tried
 * again and after how long (policy, outcome, attempt → decision), whether the next attempt is a
 * `/retry` or a resubmission, and the retry settings of sluice's own activities. The job workflow,
 * the batch's bulk steps (workflows/batch/ledger.ts) and, through its child job workflows, the
 * per-job mode decide here; a pipeline's stages will too.
 *
 * Pure, zod-free and Node-free: workflows import it at run time (each workflow run evaluates what it
 * imports), like contracts/names and contracts/limits (eslint.config.mjs lists all three). It is
 * a rule, not a name shared across the boundary, hence its own file beside them. The policy is a
 * plain shape here (the zod schema `JobRetryOptions` in contracts/job.ts satisfies it).
 */
import { NON_RETRYABLE, RETENTION_MARGIN_MS } from './names';

/** What the rule reads of a retry policy (`JobRetryOptions`; a pipeline stage's retry). */
export interface RetryPolicy {
  /** Total attempts including the first. */
  maxAttempts: number;
  /** Wait before the first retry, ms. */
  initialBackoffMs: number;
  /** Growth of the wait per retry. */
  backoffCoefficient: number;
  /** Longest wait between attempts, ms. */
  maxBackoffMs: number;
  /** Terminal states that are retried (of FAILED, TIMED_OUT). */
  retryOn: readonly string[];
  /** Error types never retried: a name matches the type or its dotted tail (absent in inputs recorded before it). */
  nonRetryableErrorTypes?: readonly string[];
  /** Regular expressions over the error text: a match is never retried (absent in inputs recorded before it). */
  nonRetryableErrorPatterns?: readonly string[];
}

/** A finished remote run, as the rule sees it. */
export interface RunOutcome {
  /** The run's terminal status (COMPLETED, FAILED, TIMED_OUT, CANCELLED). */
  status: string;
  error?: string;
  errorType?: string;
  /** Its orchestration asked to cancel it (a batch being cancelled): never tried again. */
  cancelRequested?: boolean;
}

/** Why a run is not tried again. */
export type NoRetryReason =
  'not-failed' | 'status-not-retried' | 'non-retryable-error' | 'cancel-requested' | 'attempts-used';

/** The rule's answer for a run that ended: try again after `delayMs` (as attempt `next`), or stop. */
export type RetryDecision = { retry: true; delayMs: number; next: number } | { retry: false; reason: NoRetryReason };

/** Statuses a run may be retried from at all. */
const RETRYABLE_STATUSES: readonly string[] = ['FAILED', 'TIMED_OUT'];

/** Why `outcome` is never worth another attempt under `policy`, whatever the attempt; undefined when it is. */
export function notRetryable(policy: RetryPolicy, outcome: RunOutcome): NoRetryReason | undefined {
  if (!RETRYABLE_STATUSES.includes(outcome.status)) return 'not-failed';
  if (!policy.retryOn.includes(outcome.status)) return 'status-not-retried';
  if (neverRetried(policy, outcome)) return 'non-retryable-error';
  if (outcome.cancelRequested) return 'cancel-requested';
  return undefined;
}

/** The wait before the attempt after attempt `attempt` (from 1): exponential, capped. */
export const backoffMs = (policy: RetryPolicy, attempt: number): number =>
  Math.min(policy.maxBackoffMs, policy.initialBackoffMs * policy.backoffCoefficient ** (attempt - 1));

/** Whether the run that ended as attempt `attempt` (from 1) with `outcome` is tried again, and when. */
export function decideRetry(policy: RetryPolicy, outcome: RunOutcome, attempt: number): RetryDecision {
  const reason = notRetryable(policy, outcome) ?? (attempt >= policy.maxAttempts ? 'attempts-used' : undefined);
  if (reason) return { retry: false, reason };
  return { retry: true, delayMs: backoffMs(policy, attempt), next: attempt + 1 };
}

/** A failure the policy names as never retried (by error type, or a pattern over its message). */
function neverRetried(policy: RetryPolicy, outcome: RunOutcome): boolean {
  const types = policy.nonRetryableErrorTypes ?? [];
  const patterns = policy.nonRetryableErrorPatterns ?? [];
  const type = outcome.errorType;
  if (type && types.some((name) => type === name || type.endsWith(`.${name}`))) return true;
  const error = outcome.error;
  return error !== undefined && patterns.some((p) => new RegExp(p).test(error));
}

/** Until when a finished run may be `/retry`'d: its result's retention from `observedAt`, less a margin. */
export const retainedUntil = (observedAt: number, retentionMs: number): number =>
  observedAt + retentionMs - RETENTION_MARGIN_MS;

/** A `retainedUntil` meaning the result is gone (never seen, or `/retry` was refused): resubmit. */
export const RESULT_GONE = 0;

/** The next attempt of a finished run: `/retry` (same remote id) while its result is retained, else a new submission. */
export const retryOrResubmit = (now: number, until: number): 'retry' | 'resubmit' =>
  now < until ? 'retry' : 'resubmit';

/** The states a FAILED or TIMED_OUT job is in once a `/retry` was applied to it. */
const AFTER_RETRY: ReadonlySet<string> = new Set(['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED']);

/**
 * Whether a job whose `/retry` the service refused ("only FAILED or TIMED_OUT jobs can be retried")
 * was retried already: only a `/retry` moves a FAILED or TIMED_OUT job, so a job now in `status`
 * left that state by a call the service applied whose answer was lost (a reset after the answer, an
 * activity retried before it recorded the call). Taken as refused, the input would be resubmitted
 * beside its retried job: two remote jobs for one attempt (issue 19's faults with kills).
 */
export const retryApplied = (status: string): boolean => AFTER_RETRY.has(status);

/**
 * How sluice's own activities are retried (HTTP calls, store writes; not the remote job): 1 s,
 * doubling, at most 30 s apart, never for the failure types that end a job. Temporal's
 * `RetryPolicy` shape, frozen (the SDK reads it, never writes it).
 */
export const ACTIVITY_RETRY = Object.freeze({
  initialInterval: '1s',
  backoffCoefficient: 2,
  maximumInterval: '30s',
  nonRetryableErrorTypes: [...NON_RETRYABLE] as string[],
});

/**
 * How a batch step is retried: as {@link ACTIVITY_RETRY}, but first after 200 ms. A step is
 * idempotent (its submissions journaled, its result kept once) and its usual retry follows its
 * daemon's death (a heartbeat timeout): a second's backoff then is only a second more of the batch
 * standing still (issue 19's kills).
 */
export const STEP_RETRY = Object.freeze({ ...ACTIVITY_RETRY, initialInterval: '200ms' });
