/**
 * Errors of the results layer (the store, the batch file formats, the outcome record): plain
 * errors with stable codes, never Temporal failures. The activities map them to an
 * ApplicationFailure where a workflow must see them (a bad input location, a rerun with nothing
 * to rerun: `BAD_REQUEST`, not retried); the client and the CLI turn them into their own errors.
 */

/** Stable codes of {@link StoreError}. */
export type StoreErrorCode =
  | 'NOT_FOUND'
  | 'INVALID_KEY'
  | 'INVALID_URL'
  | 'MISSING_CONFIG'
  | 'UNSUPPORTED'
  /** A batch rerun found no results.jsonl of the run it reruns. */
  | 'NO_RESULTS'
  /** The local store's filesystem is full (ENOSPC, EDQUOT): retried, the message names the file. */
  | 'NO_SPACE';

/** A results failure with a stable code (other I/O and network errors pass through as they are). */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** True when `err` is a {@link StoreError} (of `code`, if given). */
export const isStoreError = (err: unknown, code?: StoreErrorCode): err is StoreError =>
  err instanceof StoreError && (code === undefined || err.code === code);
