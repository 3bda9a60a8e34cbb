import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { isPlatformApiError } from '../platform-api';

/**
 * Failure types of sluice's activities, as `ApplicationFailure.type`: workflows and callers
 * match on these strings.
 */
export const FailureType = {
  /** The job's ttl expired: the service forgot it (404 on status). Not retryable. */
  JOB_EXPIRED: 'JOB_EXPIRED',
  /** The endpoint does not exist (404). Not retryable. */
  ENDPOINT_NOT_FOUND: 'ENDPOINT_NOT_FOUND',
  /** The API key is wrong or has no access (401). Not retryable. */
  UNAUTHORIZED: 'UNAUTHORIZED',
  /** The service refused the request as malformed (400). Not retryable. */
  BAD_REQUEST: 'BAD_REQUEST',
  /** The body is over the service's size limit. Not retryable. */
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  /** `/retry` refused (result expired, or the job is not FAILED/TIMED_OUT): resubmit instead. */
  RETRY_REFUSED: 'RETRY_REFUSED',
  /** The job is still running: a benign failure that makes Temporal poll again later. */
  JOB_NOT_DONE: 'JOB_NOT_DONE',
} as const;
export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/** Failure types a job workflow must not retry at the activity level. */
export const NON_RETRYABLE: string[] = [
  FailureType.JOB_EXPIRED, FailureType.ENDPOINT_NOT_FOUND, FailureType.UNAUTHORIZED,
  FailureType.BAD_REQUEST, FailureType.PAYLOAD_TOO_LARGE, FailureType.RETRY_REFUSED,
];

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
 * 429, 5xx and network errors stay retryable (Temporal retries the activity); 400/401 do not.
 * A 404 is left to the caller, which knows whether the job or the endpoint is missing.
 */
export function toFailure(err: unknown): unknown {
  if (!isPlatformApiError(err)) return err;
  const details = [err.toJSON()];
  switch (err.code) {
    case 'UNAUTHORIZED':
    case 'BAD_REQUEST':
    case 'PAYLOAD_TOO_LARGE':
      return ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: true, details });
    default:
      return ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: !err.retryable, details });
  }
}
