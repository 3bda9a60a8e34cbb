import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { FailureType } from '../contracts/names';
import { isPlatformApiError } from '../platform-api';

export { FailureType, NON_RETRYABLE } from '../contracts/names';

/** A non-retryable failure of `type`, with plain-JSON context. */
export function fatal(type: FailureType, message: string, context: Record<string, unknown> = {}): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true, details: [context] });
}

/** "Not finished yet": benign (no error logs or metrics), retried after `nextRetryDelayMs` if given. */
export function notDone(message: string, nextRetryDelayMs?: number): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.JOB_NOT_DONE,
    message,
    category: ApplicationFailureCategory.BENIGN,
    ...(nextRetryDelayMs !== undefined ? { nextRetryDelay: nextRetryDelayMs } : {}),
  });
}

/**
 * Turns an error of the platform client into an `ApplicationFailure` whose `type` is its code.
 * 429, 5xx and network errors stay retryable (Temporal retries the activity); 400/401/413 do not.
 * A 404 is left to the caller, which knows whether the job or the endpoint is missing.
 */
export function toFailure(err: unknown): unknown {
  if (!isPlatformApiError(err)) return err;
  return ApplicationFailure.create({
    type: err.code,
    message: err.message,
    nonRetryable: !err.retryable,
    details: [err.toJSON()],
  });
}
