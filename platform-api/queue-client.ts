/**
 * Typed client of the queue operations (`{base}/{endpointId}/...`): submit, observe, stream,
 * cancel, retry, purge and health. Every answer is validated against the contracts.
 */
import { z } from 'zod';
import { LIMITS } from '../contracts/limits';
import {
  Health,
  JobAck,
  JobRecord,
  PurgeResult,
  StreamChunk,
  StreamResponse,
  type JobStatus,
  type JobSubmission,
} from '../contracts/queue';
import { type PlatformApiErrorContext } from './errors';
import { HttpCore } from './http';
import { idempotencyHeaders, per, sendQueueCall, type QueueCall } from './queue-call';
import { traced } from './tracing';
import { type CallOptions, type QueueClientOptions, type SubmitOptions, type Submitted } from './queue-options';
import { RateBudget } from './rate-budget';
import { checkTtlMs, checkWaitMs, encodeSubmission, segment } from './validate';

export {
  type CallOptions,
  type QueueClientOptions,
  type QueueOperation,
  type SubmitOptions,
  type Submitted,
} from './queue-options';

/** Slack added to `wait` for the HTTP deadline of runsync / status-sync, so the server's own answer at `wait` arrives first. */
export const SYNC_WAIT_MARGIN_MS = 10_000;

/** `/stream` answer, normalised: services answering a bare chunk array give no `status`. */
export interface StreamResult {
  id?: string;
  status?: JobStatus;
  stream: StreamChunk[];
  [key: string]: unknown;
}
const StreamAnswer = z.union([StreamResponse, z.array(StreamChunk)]);

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
    const encoded = encodeSubmission(body, 'run', ctx, opts.checked);
    const headers = idempotencyHeaders(opts.idempotencyKey, ctx);
    return this.call({ ...ctx, ...per(opts), method: 'POST', tail: () => '/run', body: encoded, headers }, JobAck);
  }

  /**
   * POST `/runsync?wait=`: queues a job and waits up to `waitMs` (1000..300000; server default 90 s
   * when omitted). The record may still be IN_QUEUE / IN_PROGRESS when the wait ends: poll `status`.
   */
  async runSync(
    endpointId: string,
    body: JobSubmission,
    opts: SubmitOptions & { waitMs?: number } = {},
  ): Promise<Submitted<JobRecord>> {
    const ctx = { operation: 'runsync', endpointId } as const;
    const wait = opts.waitMs === undefined ? undefined : checkWaitMs(opts.waitMs, ctx);
    const encoded = encodeSubmission(body, 'runsync', ctx, opts.checked);
    const headers = idempotencyHeaders(opts.idempotencyKey, ctx);
    const timeoutMs = (wait ?? LIMITS.runsyncWaitDefaultMs) + SYNC_WAIT_MARGIN_MS;
    return this.call(
      {
        ...ctx,
        method: 'POST',
        tail: () => '/runsync',
        query: { wait },
        body: encoded,
        headers,
        timeoutMs,
        ...per(opts),
      },
      JobRecord,
    );
  }

  /** GET `/status/{jobId}`; `ttlMs` also resets the job's TTL. NOT_FOUND once TTL or retention expired. */
  async status(endpointId: string, jobId: string, opts: CallOptions & { ttlMs?: number } = {}): Promise<JobRecord> {
    const ctx = { operation: 'status', endpointId, jobId } as const;
    const ttl = opts.ttlMs === undefined ? undefined : checkTtlMs(opts.ttlMs, ctx);
    return this.call(
      { ...ctx, method: 'GET', tail: (c) => `/status/${segment('jobId', jobId, c)}`, query: { ttl }, ...per(opts) },
      JobRecord,
    );
  }

  /** GET `/status-sync/{jobId}?wait=`: like status, but the server holds the answer until terminal or `waitMs`. */
  async statusSync(endpointId: string, jobId: string, opts: CallOptions & { waitMs: number }): Promise<JobRecord> {
    const ctx = { operation: 'status-sync', endpointId, jobId } as const;
    const wait = checkWaitMs(opts.waitMs, ctx);
    const tail = (c: PlatformApiErrorContext): string => `/status-sync/${segment('jobId', jobId, c)}`;
    return this.call(
      { ...ctx, method: 'GET', tail, query: { wait }, timeoutMs: wait + SYNC_WAIT_MARGIN_MS, ...per(opts) },
      JobRecord,
    );
  }

  /** GET `/stream/{jobId}`: new chunks. Accepts the `{status, stream}` envelope and a bare chunk array. */
  async stream(endpointId: string, jobId: string, opts: CallOptions = {}): Promise<StreamResult> {
    const ctx = { operation: 'stream', endpointId, jobId } as const;
    const answer = await this.call(
      { ...ctx, method: 'GET', tail: (c) => `/stream/${segment('jobId', jobId, c)}`, ...per(opts) },
      StreamAnswer,
    );
    return Array.isArray(answer) ? { stream: answer } : answer;
  }

  /** POST `/cancel/{jobId}` with `{}`. */
  async cancel(endpointId: string, jobId: string, opts: CallOptions = {}): Promise<JobAck> {
    const ctx = { operation: 'cancel', endpointId, jobId } as const;
    return this.call(
      { ...ctx, method: 'POST', tail: (c) => `/cancel/${segment('jobId', jobId, c)}`, body: '{}', ...per(opts) },
      JobAck,
    );
  }

  /** POST `/retry/{jobId}` with `{}`: re-queues a FAILED / TIMED_OUT job under the same id. */
  async retry(endpointId: string, jobId: string, opts: CallOptions = {}): Promise<JobAck> {
    const ctx = { operation: 'retry', endpointId, jobId } as const;
    return this.call(
      { ...ctx, method: 'POST', tail: (c) => `/retry/${segment('jobId', jobId, c)}`, body: '{}', ...per(opts) },
      JobAck,
    );
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

  /** Loads the HTTP transport now rather than at the first call (HttpCore.warm). */
  warm(): void {
    if (!this.closed) this.http.warm();
  }

  /** Closes the connection pool (not a caller-supplied dispatcher). Later calls throw. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.http.close();
  }

  /** Every method's request: refused once closed, else sent through ./queue-call. */
  private call<S extends z.ZodType>(c: QueueCall, schema: S): Promise<z.output<S>> {
    if (this.closed) return Promise.reject(new Error('QueueClient is closed'));
    return traced(c, () => sendQueueCall({ http: this.http, budget: this.budget, opts: this.opts }, c, schema));
  }
}
