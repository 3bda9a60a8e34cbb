/**
 * Client-side checks before sending and contract validation after receiving. Failing early here
 * costs no rate budget and, for submissions, can never leave a half-created job behind.
 */
import { type z } from 'zod';
import { LIMITS } from '../contracts/limits';
import { JobSubmission, TtlMs } from '../contracts/queue';
import { BadRequestError, InvalidResponseError, PayloadTooLargeError, type PlatformApiErrorContext } from './errors';
import { type HttpResponse } from './http';

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message)).join('; ');
}

function plainIssues(issues: readonly z.core.$ZodIssue[]): Array<{ path: string; message: string }> {
  return issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}

/**
 * Validates a `/run` or `/runsync` body against the contract (unless the caller `checked` it) and
 * its size limit, and returns the JSON to send. The caller's object is sent as given (extra
 * top-level keys survive, as with the official SDKs); the size is the UTF-8 byte length of exactly that JSON.
 */
export function encodeSubmission(
  body: unknown,
  operation: 'run' | 'runsync',
  ctx: PlatformApiErrorContext,
  checked = false,
): string {
  const parsed = checked ? undefined : JobSubmission.safeParse(body);
  if (parsed && !parsed.success) {
    const issues = parsed.error.issues;
    throw new BadRequestError(`invalid ${operation} body: ${describeIssues(issues)}`, {
      ...ctx,
      body: plainIssues(issues),
    });
  }
  const json = JSON.stringify(body);
  const limit = operation === 'run' ? LIMITS.runPayloadBytes : LIMITS.runsyncPayloadBytes;
  const size = Buffer.byteLength(json, 'utf8');
  if (size > limit) {
    throw new PayloadTooLargeError(`${operation} body is ${size} bytes, over the limit of ${limit} bytes`, {
      ...ctx,
      body: { sizeBytes: size, limitBytes: limit },
    });
  }
  return json;
}

/** Checks a `wait` parameter of runsync / status-sync against the spec's 1000..300000 ms. */
export function checkWaitMs(waitMs: number, ctx: PlatformApiErrorContext): number {
  const { runsyncWaitMinMs: min, runsyncWaitMaxMs: max } = LIMITS;
  if (!Number.isInteger(waitMs) || waitMs < min || waitMs > max) {
    throw new BadRequestError(`wait must be an integer number of milliseconds in ${min}..${max}, got ${waitMs}`, ctx);
  }
  return waitMs;
}

/** Checks a `ttl` parameter of status with the contract's schema. */
export function checkTtlMs(ttlMs: number, ctx: PlatformApiErrorContext): number {
  const parsed = TtlMs.safeParse(ttlMs);
  if (!parsed.success) throw new BadRequestError(`invalid ttl: ${describeIssues(parsed.error.issues)}`, ctx);
  return parsed.data;
}

/** Encodes one path segment; an empty id would silently address another route, so it is refused. */
export function segment(name: string, value: string, ctx: PlatformApiErrorContext): string {
  if (typeof value !== 'string' || value === '') throw new BadRequestError(`${name} must be a non-empty string`, ctx);
  return encodeURIComponent(value);
}

/** Validates a 2xx answer with a contract schema; failures become INVALID_RESPONSE. */
export function parseResponse<S extends z.ZodType>(
  schema: S,
  res: HttpResponse,
  ctx: PlatformApiErrorContext,
): z.output<S> {
  if (res.notJson || res.body === undefined) {
    throw new InvalidResponseError(`${ctx.operation ?? 'request'}: expected a JSON body`, {
      ...ctx,
      status: res.status,
      body: res.body,
    });
  }
  const parsed = schema.safeParse(res.body);
  if (!parsed.success) {
    throw new InvalidResponseError(
      `${ctx.operation ?? 'request'}: answer does not match the contract: ${describeIssues(parsed.error.issues)}`,
      {
        ...ctx,
        status: res.status,
        body: { issues: plainIssues(parsed.error.issues) },
      },
    );
  }
  return parsed.data;
}
