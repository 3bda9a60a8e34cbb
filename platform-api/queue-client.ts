/**
 * Typed client of the queue operations (`{base}/{endpointId}/...`): submit, observe, stream,
 * cancel, retry, purge and health. Every answer is validated against the contracts.
 */
import { type Dispatcher } from 'undici';
import { z } from 'zod';
import {
  Health,
  IDEMPOTENCY_HEADERS,
  JobAck,
  JobRecord,
  LIMITS,
  PurgeResult,
  StreamChunk,
  StreamResponse,
  type JobStatus,
  type JobSubmission,
  type RateLimitedOperation,
} from '../contracts';
import { BadRequestError, isPlatformApiError, type PlatformApiErrorContext } from './errors';
import { HttpCore, type AuthStyle, type HttpRequest } from './http';
import { RateBudget, type AcquireOptions, type RateBudgetOptions } from './rate-budget';
import { withRetry, type RetryEvent, type RetryOptions } from './retry';
import { checkTtlMs, checkWaitMs, encodeSubmission, parseResponse, segment } from './validate';

/** Names of the queue operations, as used in error context and retry events. */
export type QueueOperation = 'run' | 'runsync' | 'status' | 'status-sync' | 'stream' | 'cancel' | 'retry' | 'purge-queue' | 'health';

// Rate-limit table rows per operation; retry and health have no row in the spec, so no budget.
const BUDGET_ROW: Record<QueueOperation, RateLimitedOperation | null> = {
  run: 'run', runsync: 'runsync', status: 'status', 'status-sync': 'status', stream: 'stream',
  cancel: 'cancel', retry: null, 'purge-queue': 'purge-queue', health: null,
};
// Submissions create a job per accepted request: see the retry rule in retry.ts.
const NON_IDEMPOTENT: ReadonlySet<QueueOperation> = new Set(['run', 'runsync']);

/** Slack added to `wait` for the HTTP deadline of runsync / status-sync, so the server's own answer at `wait` arrives first. */
export const SYNC_WAIT_MARGIN_MS = 10_000;

/** Options of {@link QueueClient}. */
export interface QueueClientOptions {
  /** Queue base URL including `/v2`, e.g. `http://127.0.0.1:8080/v2` or `https://api.runpod.ai/v2`. */
  baseUrl: string;
  apiKey: string;
  /** Default `bearer` (spec); `bare` sends the key alone. */
  authStyle?: AuthStyle;
  retry?: Partial<RetryOptions>;
  /** true (default): base limits of the spec; false: off; options, or a shared {@link RateBudget}. */
  rateBudget?: boolean | RateBudgetOptions | RateBudget;
  /** Deadline of one request except runsync / status-sync, ms. Default 30000. */
  requestTimeoutMs?: number;
  /**
   * Sockets to the origin. Default 64. Each in-flight runsync / status-sync holds one for up to its
   * `wait`, and calls beyond the pool size queue (inside their deadline): raise it for many long waits.
   */
  connections?: number;
  keepAliveTimeout?: number;
  /** Caller-owned undici dispatcher (e.g. shared Agent); not closed by {@link QueueClient.close}. */
  dispatcher?: Dispatcher;
  /** Observes each retry (logging, metrics). */
  onRetry?: (e: RetryEvent & { operation: QueueOperation }) => void;
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Place in the rate budget's queue of the endpoint: higher goes first (see {@link AcquireOptions}).
   * @default 5
   */
  priority?: number;
  /** Told how long the rate budget held the call (ms), each time it had to wait. */
  onBudgetWait?: (ms: number) => void;
  /** Asked when a call that waited gets its turn: true withdraws it unsent (`BudgetWithdrawnError`). */
  withdrawIf?: () => boolean;
}

/** Options of `run` and `runSync`. */
export interface SubmitOptions extends CallOptions {
  /**
   * Sent as `Idempotency-Key` (1..255 characters). The local platform answers a key it saw before
   * (same API key and endpoint, first job still held) with that job instead of creating a second
   * one; with a key the submission is also retried like an idempotent call. The real service
   * ignores the header.
   * @default undefined (no header; a job per accepted request)
   */
  idempotencyKey?: string;
}

/**
 * An answer of `run` / `runSync`. `replayed` (not enumerable: absent from JSON and equality) is
 * true when the platform answered an earlier job of the same idempotency key.
 */
export type Submitted<T> = T & { readonly replayed?: boolean };


/** `/stream` answer, normalised: services answering a bare chunk array give no `status`. */
export interface StreamResult {
  id?: string;
  status?: JobStatus;
  stream: StreamChunk[];
  [key: string]: unknown;
}
const StreamAnswer = z.union([StreamResponse, z.array(StreamChunk)]);

interface Call {
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
}

/** Pause of an endpoint's budget after a 429 without Retry-After, ms. */
const DEFAULT_429_PAUSE_MS = 1000;

/** Client of one queue base URL. Safe for concurrent use; create one per process and origin. */
export class QueueClient {
  private readonly http: HttpCore;
  private readonly budget: RateBudget;
  private closed = false;

  constructor(private readonly opts: QueueClientOptions) {
    this.http = new HttpCore(opts);
    const rb = opts.rateBudget ?? true;
    this.budget = rb instanceof RateBudget ? rb : new RateBudget(typeof rb === 'boolean' ? { enabled: rb } : rb);
  }

  /** The rate budget every call of this client goes through (shared by all its callers). */
  get rateBudget(): RateBudget {
    return this.budget;
  }

  /**
   * POST `/run`: queues a job. Never retried once the request may have reached the server, unless
   * an `idempotencyKey` makes a repeat harmless.
   */
  async run(endpointId: string, body: JobSubmission, opts: SubmitOptions = {}): Promise<Submitted<JobAck>> {
    const ctx = { operation: 'run', endpointId } as const;
    const encoded = encodeSubmission(body, 'run', ctx);
    const headers = idempotencyHeaders(opts.idempotencyKey, ctx);
    return this.call({ ...ctx, ...per(opts), method: 'POST', tail: () => '/run', body: encoded, headers }, JobAck);
  }

  /**
   * POST `/runsync?wait=`: queues a job and waits up to `waitMs` (1000..300000; server default 90 s
   * when omitted). The record may still be IN_QUEUE / IN_PROGRESS when the wait ends: poll `status`.
   */
  async runSync(endpointId: string, body: JobSubmission, opts: SubmitOptions & { waitMs?: number } = {}): Promise<Submitted<JobRecord>> {
    const ctx = { operation: 'runsync', endpointId } as const;
    const wait = opts.waitMs === undefined ? undefined : checkWaitMs(opts.waitMs, ctx);
    const encoded = encodeSubmission(body, 'runsync', ctx);
    const headers = idempotencyHeaders(opts.idempotencyKey, ctx);
    const timeoutMs = (wait ?? LIMITS.runsyncWaitDefaultMs) + SYNC_WAIT_MARGIN_MS;
    return this.call({ ...ctx, method: 'POST', tail: () => '/runsync', query: { wait }, body: encoded, headers, timeoutMs, ...per(opts) }, JobRecord);
  }

  /** GET `/status/{jobId}`; `ttlMs` also resets the job's TTL. NOT_FOUND once TTL or retention expired. */
  async status(endpointId: string, jobId: string, opts: CallOptions & { ttlMs?: number } = {}): Promise<JobRecord> {
    const ctx = { operation: 'status', endpointId, jobId } as const;
    const ttl = opts.ttlMs === undefined ? undefined : checkTtlMs(opts.ttlMs, ctx);
    return this.call({ ...ctx, method: 'GET', tail: (c) => `/status/${segment('jobId', jobId, c)}`, query: { ttl }, ...per(opts) }, JobRecord);
  }

  /** GET `/status-sync/{jobId}?wait=`: like status, but the server holds the answer until terminal or `waitMs`. */
  async statusSync(endpointId: string, jobId: string, opts: CallOptions & { waitMs: number }): Promise<JobRecord> {
    const ctx = { operation: 'status-sync', endpointId, jobId } as const;
    const wait = checkWaitMs(opts.waitMs, ctx);
    const tail = (c: PlatformApiErrorContext): string => `/status-sync/${segment('jobId', jobId, c)}`;
    return this.call({ ...ctx, method: 'GET', tail, query: { wait }, timeoutMs: wait + SYNC_WAIT_MARGIN_MS, ...per(opts) }, JobRecord);
  }

  /** GET `/stream/{jobId}`: new chunks. Accepts the `{status, stream}` envelope and a bare chunk array. */
  async stream(endpointId: string, jobId: string, opts: CallOptions = {}): Promise<StreamResult> {
    const ctx = { operation: 'stream', endpointId, jobId } as const;
    const answer = await this.call({ ...ctx, method: 'GET', tail: (c) => `/stream/${segment('jobId', jobId, c)}`, ...per(opts) }, StreamAnswer);
    return Array.isArray(answer) ? { stream: answer } : answer;
  }

  /** POST `/cancel/{jobId}` with `{}`. */
  async cancel(endpointId: string, jobId: string, opts: CallOptions = {}): Promise<JobAck> {
    const ctx = { operation: 'cancel', endpointId, jobId } as const;
    return this.call({ ...ctx, method: 'POST', tail: (c) => `/cancel/${segment('jobId', jobId, c)}`, body: '{}', ...per(opts) }, JobAck);
  }

  /** POST `/retry/{jobId}` with `{}`: re-queues a FAILED / TIMED_OUT job under the same id. */
  async retry(endpointId: string, jobId: string, opts: CallOptions = {}): Promise<JobAck> {
    const ctx = { operation: 'retry', endpointId, jobId } as const;
    return this.call({ ...ctx, method: 'POST', tail: (c) => `/retry/${segment('jobId', jobId, c)}`, body: '{}', ...per(opts) }, JobAck);
  }

  /** POST `/purge-queue` with `{}`: removes queued (not running) jobs. */
  async purgeQueue(endpointId: string, opts: CallOptions = {}): Promise<PurgeResult> {
    const ctx = { operation: 'purge-queue', endpointId } as const;
    return this.call({ ...ctx, method: 'POST', tail: () => '/purge-queue', body: '{}', ...per(opts) }, PurgeResult);
  }

  /** GET `/health`: job and worker counts. */
  async health(endpointId: string, opts: CallOptions = {}): Promise<Health> {
    const ctx = { operation: 'health', endpointId } as const;
    return this.call({ ...ctx, method: 'GET', tail: () => '/health', ...per(opts) }, Health);
  }

  /** Closes the connection pool (not a caller-supplied dispatcher). Later calls throw. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.http.close();
  }

  private async call<S extends z.ZodType>(c: Call, schema: S): Promise<z.output<S>> {
    if (this.closed) throw new Error('QueueClient is closed');
    const ctx: PlatformApiErrorContext = { operation: c.operation, endpointId: c.endpointId, jobId: c.jobId };
    const path = `/${segment('endpointId', c.endpointId, ctx)}${c.tail(ctx)}`;
    const row = BUDGET_ROW[c.operation];
    const req: HttpRequest = { method: c.method, path, query: c.query, body: c.body, headers: c.headers, timeoutMs: c.timeoutMs, signal: c.signal, ctx };
    const acquire: AcquireOptions = { signal: c.signal, priority: c.priority, onWait: c.onBudgetWait, withdrawIf: c.withdrawIf };
    const once = async () => {
      if (!row) return this.http.send(req);
      return this.budget.run(row, c.endpointId, async () => {
        try {
          return await this.http.send(req);
        } catch (err) {
          // The service's window is fuller than this budget knows (other clients): every caller of
          // the endpoint waits out the Retry-After together (paused before this slot is released),
          // instead of each retrying on its own.
          if (isPlatformApiError(err, 'RATE_LIMITED')) this.budget.pause(row, c.endpointId, err.retryAfterMs ?? DEFAULT_429_PAUSE_MS);
          throw err;
        }
      }, acquire);
    };
    const res = await withRetry(once, {
      // A submission with an idempotency key creates one job however often it is sent.
      idempotent: !NON_IDEMPOTENT.has(c.operation) || c.headers?.[IDEMPOTENCY_HEADERS.key] !== undefined,
      retry: this.opts.retry,
      signal: c.signal,
      onRetry: this.opts.onRetry && ((e) => this.opts.onRetry?.({ ...e, operation: c.operation })),
    });
    const parsed = parseResponse(schema, res, ctx);
    if (c.headers?.[IDEMPOTENCY_HEADERS.key] !== undefined && parsed !== null && typeof parsed === 'object') {
      Object.defineProperty(parsed, 'replayed', { value: res.headers[IDEMPOTENCY_HEADERS.replayed] === 'true', enumerable: false });
    }
    return parsed;
  }
}

/** The per-call fields of a {@link Call}. */
function per(o: CallOptions): Pick<Call, 'signal' | 'priority' | 'onBudgetWait' | 'withdrawIf'> {
  return { signal: o.signal, priority: o.priority, onBudgetWait: o.onBudgetWait, withdrawIf: o.withdrawIf };
}

/** The `idempotency-key` header of a submission, checked against the platform's length limit. */
function idempotencyHeaders(key: string | undefined, ctx: PlatformApiErrorContext): Record<string, string> | undefined {
  if (key === undefined) return undefined;
  const max = LIMITS.idempotencyKeyMaxLength;
  if (typeof key !== 'string' || key.length === 0 || key.length > max) {
    throw new BadRequestError(`idempotencyKey must be 1 to ${max} characters`, ctx);
  }
  return { [IDEMPOTENCY_HEADERS.key]: key };
}
