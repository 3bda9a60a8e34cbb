/**
 * Typed errors of the platform client. Every error carries a stable literal `code` and plain
 * context so that it survives serialisation across the Temporal boundary via {@link PlatformApiError.toJSON}.
 */

/** Stable error codes; callers and workflows switch on these, never on messages. */
export type PlatformApiErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'NOT_FOUND'
  | 'RATE_LIMITED'
  | 'PAYLOAD_TOO_LARGE'
  | 'SERVER_ERROR'
  | 'NETWORK'
  | 'INVALID_RESPONSE'
  | 'UNEXPECTED_STATUS';

/** Where and how a call failed. All fields are JSON-safe. */
export interface PlatformApiErrorContext {
  /** HTTP status, absent when no answer was received (client-side checks, network failures). */
  status?: number;
  /** Queue operation, e.g. `run`, `status`, `purge-queue`. */
  operation?: string;
  endpointId?: string;
  jobId?: string;
  /** Parsed error body, a truncated text body, or validation issues. */
  body?: unknown;
  /** Server's `Retry-After`, in milliseconds from when the answer arrived. */
  retryAfterMs?: number;
  /**
   * Only meaningful for `NETWORK`: `false` when the failure is known to precede sending
   * (e.g. connection refused), `true` when the request may have been processed by the server.
   */
  mayHaveReachedServer?: boolean;
}

/** Plain-JSON form of an error, as produced by {@link PlatformApiError.toJSON}. */
export interface PlatformApiErrorJSON extends PlatformApiErrorContext {
  name: string;
  code: PlatformApiErrorCode;
  message: string;
  retryable: boolean;
  cause?: string;
}

// A registry-wide brand so the guard also works when two copies of this module are loaded.
const BRAND = Symbol.for('sluice.platform-api.PlatformApiError');

/** Base class of every error thrown by `platform-api`. */
export abstract class PlatformApiError extends Error implements PlatformApiErrorContext {
  abstract readonly code: PlatformApiErrorCode;
  /** Whether repeating the same request can succeed; submissions apply a stricter rule (see retry.ts). */
  abstract readonly retryable: boolean;
  readonly status?: number;
  readonly operation?: string;
  readonly endpointId?: string;
  readonly jobId?: string;
  readonly body?: unknown;
  readonly retryAfterMs?: number;
  readonly mayHaveReachedServer?: boolean;

  constructor(message: string, ctx: PlatformApiErrorContext = {}, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    Object.defineProperty(this, BRAND, { value: true });
    // Only copy defined keys so toJSON stays minimal and `in` checks remain meaningful.
    for (const [k, v] of Object.entries(ctx)) if (v !== undefined) Object.assign(this, { [k]: v });
  }

  /** Plain JSON: safe for Temporal payload converters, logs and `ApplicationFailure` details. */
  toJSON(): PlatformApiErrorJSON {
    const out: PlatformApiErrorJSON = {
      name: this.name,
      code: this.code,
      message: this.message,
      retryable: this.retryable,
    };
    const keys = [
      'status',
      'operation',
      'endpointId',
      'jobId',
      'body',
      'retryAfterMs',
      'mayHaveReachedServer',
    ] as const;
    for (const k of keys) if (this[k] !== undefined) Object.assign(out, { [k]: this[k] });
    if (this.cause !== undefined) out.cause = this.cause instanceof Error ? this.cause.message : String(this.cause);
    return out;
  }
}

/** 400, or a client-side validation failure before sending (then `status` is absent). */
export class BadRequestError extends PlatformApiError {
  readonly code = 'BAD_REQUEST' as const;
  readonly retryable = false;
}

/** 401/403: wrong key or key without permission. */
export class UnauthorizedError extends PlatformApiError {
  readonly code = 'UNAUTHORIZED' as const;
  readonly retryable = false;
}

/** 404: unknown endpoint, or a job that never existed / expired (TTL or retention). */
export class NotFoundError extends PlatformApiError {
  readonly code = 'NOT_FOUND' as const;
  readonly retryable = false;
}

/** 429: over the effective rate limit. The request was refused, so no job was created. */
export class RateLimitedError extends PlatformApiError {
  readonly code = 'RATE_LIMITED' as const;
  readonly retryable = true;
}

/** Body over the size limit: detected client-side (no request made), or 413 / 400 naming a size limit. */
export class PayloadTooLargeError extends PlatformApiError {
  readonly code = 'PAYLOAD_TOO_LARGE' as const;
  readonly retryable = false;
}

/** 5xx. For submissions the job may or may not exist, so they are not retried. */
export class ServerError extends PlatformApiError {
  readonly code = 'SERVER_ERROR' as const;
  readonly retryable = true;
}

/** No HTTP answer: connection failure, reset, or timeout. See `mayHaveReachedServer`. */
export class NetworkError extends PlatformApiError {
  readonly code = 'NETWORK' as const;
  readonly retryable = true;
  declare readonly mayHaveReachedServer: boolean;

  constructor(
    message: string,
    ctx: PlatformApiErrorContext & { mayHaveReachedServer: boolean },
    options?: { cause?: unknown },
  ) {
    super(message, ctx, options);
  }
}

/** A 2xx answer that is not JSON or fails the contract schema. */
export class InvalidResponseError extends PlatformApiError {
  readonly code = 'INVALID_RESPONSE' as const;
  readonly retryable = false;
}

/** Any other status (3xx, 408, 409, ...). Only 408 is worth repeating. */
export class UnexpectedStatusError extends PlatformApiError {
  readonly code = 'UNEXPECTED_STATUS' as const;
  get retryable(): boolean {
    return this.status === 408;
  }
}

/** Maps each code to its class, for precise narrowing in {@link isPlatformApiError}. */
export interface PlatformApiErrorByCode {
  BAD_REQUEST: BadRequestError;
  UNAUTHORIZED: UnauthorizedError;
  NOT_FOUND: NotFoundError;
  RATE_LIMITED: RateLimitedError;
  PAYLOAD_TOO_LARGE: PayloadTooLargeError;
  SERVER_ERROR: ServerError;
  NETWORK: NetworkError;
  INVALID_RESPONSE: InvalidResponseError;
  UNEXPECTED_STATUS: UnexpectedStatusError;
}

/**
 * Type guard for platform errors, optionally of one `code`.
 * @example if (isPlatformApiError(e, 'NOT_FOUND')) return undefined;
 */
export function isPlatformApiError(e: unknown): e is PlatformApiError;
export function isPlatformApiError<C extends PlatformApiErrorCode>(e: unknown, code: C): e is PlatformApiErrorByCode[C];
export function isPlatformApiError(e: unknown, code?: PlatformApiErrorCode): boolean {
  if (typeof e !== 'object' || e === null || (e as Record<symbol, unknown>)[BRAND] !== true) return false;
  return code === undefined || (e as PlatformApiError).code === code;
}
