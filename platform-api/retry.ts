/**
 * Retries with exponential backoff and full jitter, with a strict rule for job submissions.
 *
 * The rule (what may be retried):
 * - Only failures whose error is `retryable`: `RATE_LIMITED` (429), `SERVER_ERROR` (5xx), `NETWORK`
 *   (connection errors, resets, timeouts) and a 408 `UNEXPECTED_STATUS`.
 * - Idempotent operations (status, status-sync, stream, health, cancel, retry, purge-queue) retry on
 *   any of them: repeating them cannot create a job.
 * - Non-idempotent submissions (`run`, `runsync`) retry ONLY when the failure proves that no job was
 *   created: a 429 answer (the service refused the request) or a network failure known to happen
 *   before sending (`mayHaveReachedServer === false`, e.g. ECONNREFUSED, DNS failure, connect timeout).
 *   A timeout, a reset after sending, or a 5xx may mean the job exists; retrying would run it twice,
 *   so the error goes to the caller, who can reconcile (e.g. by listing or by the webhook).
 */
import { isPlatformApiError } from './errors';
import { sleep } from './sleep';

/** Backoff settings. Delays are milliseconds. */
export interface RetryOptions {
  /**
   * Attempts in total, the first included.
   * @default 5
   */
  maxAttempts: number;
  /**
   * Cap of the first backoff window; window n is `baseDelayMs * 2^(n-1)`.
   * @default 200
   */
  baseDelayMs: number;
  /**
   * Cap of any backoff window.
   * @default 10000
   */
  maxDelayMs: number;
  /**
   * A `Retry-After` longer than this is not waited out in-process: the error is thrown (with
   * `retryAfterMs`) so the caller, e.g. a Temporal retry policy, can schedule the next try.
   * @default 60000
   */
  maxRetryAfterMs: number;
}

/** Defaults of {@link RetryOptions}. */
export const DEFAULT_RETRY_OPTIONS: Readonly<RetryOptions> = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
});

/** Information handed to {@link WithRetryOptions.onRetry} before each wait. */
export interface RetryEvent {
  /** The attempt that just failed, 1-based. */
  attempt: number;
  delayMs: number;
  error: unknown;
}

/** Per-call settings of {@link withRetry}. */
export interface WithRetryOptions {
  /** False for `run`/`runsync`: see the module rule. */
  idempotent: boolean;
  retry?: Partial<RetryOptions>;
  signal?: AbortSignal;
  onRetry?: (e: RetryEvent) => void;
  /**
   * Waits before a retry: resolves after `ms`, rejects when `signal` fires.
   * @default {@link sleep}
   */
  wait?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Source of randomness in [0, 1); injectable for tests. */
  random?: () => number;
}

/** Whether `error` may be retried for an operation of the given idempotency (the module rule). */
export function isSafeToRetry(error: unknown, idempotent: boolean): boolean {
  if (!isPlatformApiError(error) || !error.retryable) return false;
  if (idempotent) return true;
  if (error.code === 'RATE_LIMITED') return true;
  return error.code === 'NETWORK' && error.mayHaveReachedServer === false;
}

/** Full-jitter backoff: uniform in [0, min(maxDelayMs, baseDelayMs * 2^(attempt-1))]. */
export function backoffDelay(
  attempt: number,
  opts: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs'>,
  random = Math.random,
): number {
  const cap = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * (cap + 1));
}

/**
 * Runs `fn` until it succeeds, the error is not safe to retry ({@link isSafeToRetry}),
 * attempts run out, or `signal` aborts. Waits at least the server's `Retry-After`.
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: WithRetryOptions): Promise<T> {
  const o: RetryOptions = { ...DEFAULT_RETRY_OPTIONS, ...opts.retry };
  for (let attempt = 1; ; attempt++) {
    opts.signal?.throwIfAborted();
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt >= o.maxAttempts || !isSafeToRetry(error, opts.idempotent)) throw error;
      const retryAfterMs = isPlatformApiError(error) ? error.retryAfterMs : undefined;
      if (retryAfterMs !== undefined && retryAfterMs > o.maxRetryAfterMs) throw error;
      const delayMs = Math.max(backoffDelay(attempt, o, opts.random), retryAfterMs ?? 0);
      opts.onRetry?.({ attempt, delayMs, error });
      await (opts.wait ?? sleep)(delayMs, opts.signal);
    }
  }
}
