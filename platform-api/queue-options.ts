/** The options of the queue client: of the client, of each call and of submissions, and the names of its operations. */
import { type Dispatcher } from 'undici';
import { type AuthStyle, type HttpCoreOptions } from './http';
import { type RateBudget, type RateBudgetOptions } from './rate-budget';
import { type RetryEvent, type RetryOptions } from './retry';

/** Names of the queue operations, as used in error context and retry events. */
export type QueueOperation =
  'run' | 'runsync' | 'status' | 'status-sync' | 'stream' | 'cancel' | 'retry' | 'purge-queue' | 'health';

/** Options of the queue client (`QueueClient`, ./queue-client). */
export interface QueueClientOptions extends Pick<HttpCoreOptions, 'onRateLimited'> {
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
  /** Caller-owned undici dispatcher (e.g. shared Agent); not closed by `QueueClient.close`. */
  dispatcher?: Dispatcher;
  /** Observes each retry (logging, metrics). */
  onRetry?: (e: RetryEvent & { operation: QueueOperation }) => void;
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Place in the rate budget's queue of the endpoint: higher goes first (see `AcquireOptions` in ./rate-budget).
   * @default 5
   */
  priority?: number;
  /** Told how long the rate budget held the call (ms), each time it had to wait. */
  onBudgetWait?: (ms: number) => void;
  /** Asked when a call that waited gets its turn: true withdraws it unsent (`BudgetWithdrawnError`). */
  withdrawIf?: () => boolean;
  /**
   * How the call waits before each of its retries (a 429's `Retry-After`, a backoff): resolves
   * after `ms`, rejects when `signal` fires. A caller holding a slot of its own (a batch step's
   * submission lane) gives it up meanwhile.
   * @default a timer (`sleep`)
   */
  retryWait?: (ms: number, signal?: AbortSignal) => Promise<void>;
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
  /**
   * The caller built the body from parts it checked where they entered (an input object it parsed,
   * a webhook URL it signed itself): only the size limit is checked here, not the contract's schema
   * (a zod parse of every submission, its webhook URL parsed again: a batch's hot path, issue 23).
   * @default false
   */
  checked?: boolean;
}

/**
 * An answer of `run` / `runSync`. `replayed` (not enumerable: absent from JSON and equality) is
 * true when the platform answered an earlier job of the same idempotency key.
 */
export type Submitted<T> = T & { readonly replayed?: boolean };
