/**
 * Errors of the local platform. Each has a stable literal `code` and the HTTP status the
 * transport answers with; the transport turns them into `{ "error": message }` bodies.
 */
export abstract class PlatformError extends Error {
  abstract readonly code: string;
  abstract readonly httpStatus: number;
  constructor(message: string, readonly context: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends PlatformError {
  readonly code = 'BAD_REQUEST' as const;
  readonly httpStatus = 400;
}

/** The spec has no 413: an oversized body is a 400 whose message names the limit. */
export class PayloadTooLargeError extends PlatformError {
  readonly code = 'PAYLOAD_TOO_LARGE' as const;
  readonly httpStatus = 400;
}

export class UnauthorizedError extends PlatformError {
  readonly code = 'UNAUTHORIZED' as const;
  readonly httpStatus = 401;
}

/**
 * The caller's key is valid but the resource is another user's. The spec answers 401 for
 * "a key without permission for the call"; GraphQL reports it with code FORBIDDEN.
 */
export class ForbiddenError extends PlatformError {
  readonly code = 'FORBIDDEN' as const;
  readonly httpStatus = 401;
}

/** The request is well-formed but the resource's state refuses it (deleting an endpoint that still has workers). */
export class PreconditionFailedError extends PlatformError {
  readonly code = 'FAILED_PRECONDITION' as const;
  readonly httpStatus = 400;
}

export class NotFoundError extends PlatformError {
  readonly code = 'NOT_FOUND' as const;
  readonly httpStatus = 404;
}

export class MethodNotAllowedError extends PlatformError {
  readonly code = 'METHOD_NOT_ALLOWED' as const;
  readonly httpStatus = 405;
}

export class ConflictError extends PlatformError {
  readonly code = 'CONFLICT' as const;
  readonly httpStatus = 400;
}

export class RateLimitedError extends PlatformError {
  readonly code = 'RATE_LIMITED' as const;
  readonly httpStatus = 429;
  constructor(message: string, readonly retryAfterSeconds: number, context: Record<string, unknown> = {}) {
    super(message, context);
  }
}

export const isPlatformError = (e: unknown): e is PlatformError => e instanceof PlatformError;
