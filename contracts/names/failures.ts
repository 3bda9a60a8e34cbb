/**
 * Failure types of sluice (`ApplicationFailure.type`), defined once for workflows, activities,
 * the daemon and callers. Zod-free: workflows import it at run time.
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
  /** The daemon holding a webhook wait is shutting down: retryable, another daemon takes it up. */
  DAEMON_SHUTDOWN: 'DAEMON_SHUTDOWN',
  /** The daemon that started the activity was killed (a new daemon of its host saw its process gone): retryable, retried at once. */
  DAEMON_GONE: 'DAEMON_GONE',
  /** A job workflow's remote job ended FAILED after its last attempt; details[0] is the job's result. */
  JOB_FAILED: 'JOB_FAILED',
  /** A job workflow's remote job ended TIMED_OUT after its last attempt; details[0] is the job's result. */
  JOB_TIMED_OUT: 'JOB_TIMED_OUT',
  /** A job workflow's remote job was cancelled on the service (not by cancelling the workflow); details[0] is the job's result. */
  JOB_CANCELLED: 'JOB_CANCELLED',
  /** A job or batch a user's workflow runs (sluice/workflows) has an input the schema refuses; the message names the fields. Not retryable. */
  INVALID_INPUT: 'INVALID_INPUT',
} as const;
export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/** The failure a job workflow ends with when its remote job did not complete (Temporal then shows it Failed). */
export const JOB_END_FAILURE = {
  FAILED: FailureType.JOB_FAILED,
  TIMED_OUT: FailureType.JOB_TIMED_OUT,
  CANCELLED: FailureType.JOB_CANCELLED,
} as const;

/** Failure types that end a job: activities mark them non-retryable, workflows never retry them. */
export const NON_RETRYABLE: readonly FailureType[] = [
  FailureType.JOB_EXPIRED,
  FailureType.ENDPOINT_NOT_FOUND,
  FailureType.UNAUTHORIZED,
  FailureType.BAD_REQUEST,
  FailureType.PAYLOAD_TOO_LARGE,
  FailureType.RETRY_REFUSED,
];
