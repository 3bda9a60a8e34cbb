/** Errors of the local platform, each with a stable literal `code` and the HTTP status the transport answers with. */

/**
 * The base of every platform error; the transport turns one into a `{ "error": message }` body
 * with its `httpStatus`.
 */
export abstract class PlatformError extends Error {
  abstract readonly code: string;
  abstract readonly httpStatus: number;
  constructor(
    message: string,
    readonly context: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A platform error class with the literal `code` and the `httpStatus` given. */
function platformError<C extends string>(code: C, httpStatus: number) {
  return class extends PlatformError {
    readonly code: C = code;
    readonly httpStatus = httpStatus;
  };
}

export class BadRequestError extends platformError('BAD_REQUEST', 400) {}

/** The spec has no 413: an oversized body is a 400 whose message names the limit. */
export class PayloadTooLargeError extends platformError('PAYLOAD_TOO_LARGE', 400) {}

/** A JSON body nested deeper than `LIMITS.jsonDepth`. */
export class JsonTooDeepError extends platformError('JSON_TOO_DEEP', 400) {}

export class UnauthorizedError extends platformError('UNAUTHORIZED', 401) {}

/**
 * The caller's key is valid but the resource is another user's. The spec answers 401 for
 * "a key without permission for the call"; GraphQL reports it with code FORBIDDEN.
 */
export class ForbiddenError extends platformError('FORBIDDEN', 401) {}

/** The request is well-formed but the resource's state refuses it (deleting an endpoint that still has workers). */
export class PreconditionFailedError extends platformError('FAILED_PRECONDITION', 400) {}

export class NotFoundError extends platformError('NOT_FOUND', 404) {}

export class MethodNotAllowedError extends platformError('METHOD_NOT_ALLOWED', 405) {}

export class ConflictError extends platformError('CONFLICT', 400) {}

export class RateLimitedError extends platformError('RATE_LIMITED', 429) {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    context: Record<string, unknown> = {},
  ) {
    super(message, context);
  }
}

export const isPlatformError = (e: unknown): e is PlatformError => e instanceof PlatformError;
