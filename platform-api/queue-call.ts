/**
 * One request of the queue client, end to end: through the endpoint's rate budget (a 429 pauses it
 * for every caller), retried when a repeat is harmless, its answer validated and a replay marked.
 */
import { type z } from 'zod';
import { LIMITS, type RateLimitedOperation } from '../contracts/limits';
import { IDEMPOTENCY_HEADERS } from '../contracts/queue';
import { BadRequestError, isPlatformApiError, type PlatformApiErrorContext } from './errors';
import { type HttpCore, type HttpRequest } from './http';
import { type CallOptions, type QueueClientOptions, type QueueOperation } from './queue-options';
import { type AcquireOptions, type RateBudget } from './rate-budget';
import { withRetry } from './retry';
import { parseResponse, segment } from './validate';

// Rate-limit table rows per operation; retry and health have no row in the spec, so no budget.
const BUDGET_ROW: Record<QueueOperation, RateLimitedOperation | null> = {
  run: 'run',
  runsync: 'runsync',
  status: 'status',
  'status-sync': 'status',
  stream: 'stream',
  cancel: 'cancel',
  retry: null,
  'purge-queue': 'purge-queue',
  health: null,
};
// Submissions create a job per accepted request: see the retry rule in retry.ts.
const NON_IDEMPOTENT: ReadonlySet<QueueOperation> = new Set(['run', 'runsync']);

/** Pause of an endpoint's budget after a 429 without Retry-After, ms. */
const DEFAULT_429_PAUSE_MS = 1000;

/** One request of the queue API, as a client method describes it. */
export interface QueueCall {
  operation: QueueOperation;
  endpointId: string;
  jobId?: string;
  method: HttpRequest['method'];
  /** Path after the endpoint id, e.g. `/status/abc`. */
  tail: (ctx: PlatformApiErrorContext) => string;
  query?: HttpRequest['query'];
  body?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  signal?: AbortSignal;
  priority?: number;
  onBudgetWait?: (ms: number) => void;
  withdrawIf?: () => boolean;
  retryWait?: CallOptions['retryWait'];
}

/** What a call goes through: the client's connection pool, its rate budget and its retry options. */
export interface QueueTransport {
  http: HttpCore;
  budget: RateBudget;
  opts: Pick<QueueClientOptions, 'retry' | 'onRetry'>;
}

/** Sends `c` and returns its answer parsed with `schema` (a submission with an idempotency key gets `replayed`). */
export async function sendQueueCall<S extends z.ZodType>(
  { http, budget, opts }: QueueTransport,
  c: QueueCall,
  schema: S,
): Promise<z.output<S>> {
  const ctx: PlatformApiErrorContext = { operation: c.operation, endpointId: c.endpointId, jobId: c.jobId };
  const path = `/${segment('endpointId', c.endpointId, ctx)}${c.tail(ctx)}`;
  const row = BUDGET_ROW[c.operation];
  const req: HttpRequest = {
    method: c.method,
    path,
    query: c.query,
    body: c.body,
    headers: c.headers,
    timeoutMs: c.timeoutMs,
    signal: c.signal,
    ctx,
  };
  const acquire: AcquireOptions = {
    signal: c.signal,
    priority: c.priority,
    onWait: c.onBudgetWait,
    withdrawIf: c.withdrawIf,
  };
  const once = async () => {
    if (!row) return http.send(req);
    return budget.run(
      row,
      c.endpointId,
      async () => {
        try {
          return await http.send(req);
        } catch (err) {
          // The service's window is fuller than this budget knows (other clients): every caller of
          // the endpoint waits out the Retry-After together (paused before this slot is released),
          // instead of each retrying on its own.
          if (isPlatformApiError(err, 'RATE_LIMITED'))
            budget.pause(row, c.endpointId, err.retryAfterMs ?? DEFAULT_429_PAUSE_MS);
          throw err;
        }
      },
      acquire,
    );
  };
  const res = await withRetry(once, {
    // A submission with an idempotency key creates one job however often it is sent.
    idempotent: !NON_IDEMPOTENT.has(c.operation) || c.headers?.[IDEMPOTENCY_HEADERS.key] !== undefined,
    retry: opts.retry,
    signal: c.signal,
    wait: c.retryWait,
    onRetry: opts.onRetry && ((e) => opts.onRetry?.({ ...e, operation: c.operation })),
  });
  const parsed = parseResponse(schema, res, ctx);
  if (c.headers?.[IDEMPOTENCY_HEADERS.key] !== undefined && parsed !== null && typeof parsed === 'object') {
    Object.defineProperty(parsed, 'replayed', {
      value: res.headers[IDEMPOTENCY_HEADERS.replayed] === 'true',
      enumerable: false,
    });
  }
  return parsed;
}

/** The per-call fields of a {@link QueueCall}. */
export function per(
  o: CallOptions,
): Pick<QueueCall, 'signal' | 'priority' | 'onBudgetWait' | 'withdrawIf' | 'retryWait'> {
  const { signal, priority, onBudgetWait, withdrawIf, retryWait } = o;
  return { signal, priority, onBudgetWait, withdrawIf, retryWait };
}

/** The `idempotency-key` header of a submission, checked against the platform's length limit. */
export function idempotencyHeaders(
  key: string | undefined,
  ctx: PlatformApiErrorContext,
): Record<string, string> | undefined {
  if (key === undefined) return undefined;
  const max = LIMITS.idempotencyKeyMaxLength;
  if (typeof key !== 'string' || key.length === 0 || key.length > max) {
    throw new BadRequestError(`idempotencyKey must be 1 to ${max} characters`, ctx);
  }
  return { [IDEMPOTENCY_HEADERS.key]: key };
}
