/**
 * How the HTTP core's failures become typed errors: a non-2xx answer by its status (and `Retry-After`),
 * a request with no answer as a NetworkError that says whether it may have reached the server.
 */
import { ErrorBody } from '../contracts/queue';
import {
  BadRequestError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServerError,
  UnauthorizedError,
  UnexpectedStatusError,
  type PlatformApiError,
  type PlatformApiErrorContext,
} from './errors';

// Failures that happen before a single byte of the request can reach the server.
const PRE_SEND_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);
// A size-limit rejection is recognised by wording because the spec gives 400 with no error code.
const SIZE_LIMIT_RE =
  /too large|too big|payload.*(limit|exceed|maximum)|(size|byte)s?.*(limit|exceed)|exceeds?.*\b(bytes|mb|size)\b/i;

/** Parses `Retry-After` (delta-seconds or HTTP date) into ms from `now`; undefined when absent or invalid. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Maps a non-2xx answer to its typed error. `body` is the parsed JSON or the (truncated) text. */
export function errorForStatus(status: number, body: unknown, ctx: PlatformApiErrorContext): PlatformApiError {
  const parsed = ErrorBody.safeParse(body);
  const detail = parsed.success ? parsed.data.error : typeof body === 'string' && body ? body.slice(0, 200) : undefined;
  const c = { ...ctx, status, body };
  const msg = `${ctx.operation ?? 'request'} failed with HTTP ${status}${detail ? `: ${detail}` : ''}`;
  if (status === 413 || (status === 400 && detail !== undefined && SIZE_LIMIT_RE.test(detail)))
    return new PayloadTooLargeError(msg, c);
  if (status === 400) return new BadRequestError(msg, c);
  if (status === 401 || status === 403) return new UnauthorizedError(msg, c);
  if (status === 404) return new NotFoundError(msg, c);
  if (status === 429) return new RateLimitedError(msg, c);
  if (status >= 500) return new ServerError(msg, c);
  return new UnexpectedStatusError(msg, c);
}

function errorCodes(e: unknown): string[] {
  const codes: string[] = [];
  // undici nests the socket error in `cause`, sometimes inside an AggregateError (happy eyeballs).
  for (let cur: unknown = e, depth = 0; cur && typeof cur === 'object' && depth < 5; depth++) {
    const { code, cause, errors } = cur as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string') codes.push(code);
    if (Array.isArray(errors)) codes.push(...errors.flatMap(errorCodes));
    cur = cause;
  }
  return codes;
}

/** The NetworkError of a request that got no answer: timed out, or a socket error (did it reach the server?). */
export function networkError(
  e: unknown,
  timedOut: boolean,
  timeoutMs: number,
  ctx: PlatformApiErrorContext,
): NetworkError {
  const codes = errorCodes(e);
  // Only a known pre-send failure proves the server never saw the request; everything else might have.
  const preSend = !timedOut && codes.some((c) => PRE_SEND_CODES.has(c));
  const reason = timedOut
    ? `timed out after ${timeoutMs} ms`
    : (codes[0] ?? (e instanceof Error ? e.message : String(e)));
  return new NetworkError(
    `${ctx.operation ?? 'request'} failed: ${reason}`,
    { ...ctx, mayHaveReachedServer: !preSend },
    { cause: e },
  );
}
