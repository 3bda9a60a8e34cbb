/** Writing JSON, empty and error answers. */
import { type ServerResponse } from 'node:http';
import { isPlatformError, RateLimitedError } from '../../core/errors';

/** Writes a JSON answer. Always exactly the given status: the official clients treat 2xx other than 200 oddly. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status = 204): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status);
  res.end();
}

/**
 * Answers an error as `{ "error": "<what is wrong>" }`. Platform errors carry their status;
 * anything else is a bug of ours and becomes a 500 that is logged by the caller.
 */
export function sendError(res: ServerResponse, err: unknown, extraHeaders: Record<string, string> = {}): number {
  if (isPlatformError(err)) {
    const headers: Record<string, string> = { ...extraHeaders };
    if (err instanceof RateLimitedError) headers['retry-after'] = String(err.retryAfterSeconds);
    sendJson(res, err.httpStatus, { error: err.message }, headers);
    return err.httpStatus;
  }
  sendJson(res, 500, { error: 'internal error' }, extraHeaders);
  return 500;
}
