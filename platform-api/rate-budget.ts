/**
 * Client-side rate budget: keeps one process under the service's base limits (contracts RATE_LIMITS),
 * so that load is shaped here instead of being answered with 429s. Limits apply per endpoint and
 * operation, like the service's. The service's dynamic limit can be higher; this budget stays at the
 * guaranteed base unless `scale` says otherwise.
 */
import { performance } from 'node:perf_hooks';
import { RATE_LIMITS, RATE_WINDOW_MS, type RateLimitedOperation } from '../contracts';
import { sleep } from './sleep';

/** Options of {@link RateBudget}. */
export interface RateBudgetOptions {
  /** False turns every acquire into a no-op. Default true. */
  enabled?: boolean;
  /**
   * Multiplies rate and concurrency (floored, at least 1). Use < 1 when several processes share
   * one key and endpoint, > 1 when the endpoint is known to run enough workers. Default 1.
   */
  scale?: number;
  /** Overrides of the contract limits, mainly for tests. */
  limits?: Partial<Record<RateLimitedOperation, { perWindow: number; concurrent: number | null }>>;
  /** Window the `perWindow` counts refer to, ms. Default RATE_WINDOW_MS (10 s). */
  windowMs?: number;
}

/** Gives the slot back; calling it more than once is harmless. */
export type Release = () => void;

/** Token bucket that lets waiters reserve future tokens, so each waiter sleeps exactly once. */
export class TokenBucket {
  private tokens: number;
  private last = performance.now();

  /** @param capacity burst size; @param perMs refill rate in tokens per millisecond. */
  constructor(
    readonly capacity: number,
    readonly perMs: number,
  ) {
    this.tokens = capacity;
  }

  /** Takes one token and returns how many ms to wait before using it (0 = now). Tokens may go negative. */
  reserve(): number {
    const now = performance.now();
    this.tokens = Math.min(this.capacity, this.tokens + (now - this.last) * this.perMs);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil(-this.tokens / this.perMs);
  }

  /** Returns a reserved token that was not used (an aborted waiter). */
  refund(): void {
    this.tokens = Math.min(this.capacity, this.tokens + 1);
  }
}

/** FIFO counting semaphore; a released slot passes straight to the oldest waiter. */
export class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** Number of slots in use. */
  get inUse(): number {
    return this.active;
  }

  /** Resolves when a slot is held; rejects with the abort reason if `signal` fires first. */
  acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal?.reason as Error);
      };
      this.waiters.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Frees one slot. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.active--;
  }
}

interface Lane {
  bucket: TokenBucket;
  gate?: Semaphore;
}

const NOOP: Release = () => undefined;

/** Per (operation, endpoint) token buckets plus concurrency gates. */
export class RateBudget {
  private readonly lanes = new Map<string, Lane>();
  private readonly enabled: boolean;
  private readonly scale: number;
  private readonly windowMs: number;
  private readonly limits: Record<RateLimitedOperation, { perWindow: number; concurrent: number | null }>;

  constructor(opts: RateBudgetOptions = {}) {
    this.enabled = opts.enabled ?? true;
    this.scale = opts.scale ?? 1;
    this.windowMs = opts.windowMs ?? RATE_WINDOW_MS;
    this.limits = { ...RATE_LIMITS, ...opts.limits };
    if (!(this.scale > 0)) throw new RangeError('rate budget scale must be > 0');
  }

  /**
   * Waits for a concurrency slot and a rate token of `operation` on `endpointId`, then returns
   * the release of the slot; call it when the request has finished. Waiting uses timers, not polling.
   */
  async acquire(operation: RateLimitedOperation, endpointId = '', signal?: AbortSignal): Promise<Release> {
    if (!this.enabled) return NOOP;
    const lane = this.lane(operation, endpointId);
    // Slot first, then token: the token is then spent when the request really goes out.
    await lane.gate?.acquire(signal);
    let released = false;
    const release: Release = () => {
      if (!released) lane.gate?.release();
      released = true;
    };
    const waitMs = lane.bucket.reserve();
    if (waitMs > 0) {
      try {
        await sleep(waitMs, signal);
      } catch (e) {
        lane.bucket.refund();
        release();
        throw e;
      }
    }
    return release;
  }

  /** Runs `fn` inside the budget of `operation` on `endpointId`. */
  async run<T>(operation: RateLimitedOperation, endpointId: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(operation, endpointId, signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  private lane(operation: RateLimitedOperation, endpointId: string): Lane {
    const key = `${operation}\u0000${endpointId}`;
    let lane = this.lanes.get(key);
    if (!lane) {
      const { perWindow, concurrent } = this.limits[operation];
      const burst = Math.max(1, Math.floor(perWindow * this.scale));
      lane = { bucket: new TokenBucket(burst, burst / this.windowMs) };
      if (concurrent !== null) lane.gate = new Semaphore(Math.max(1, Math.floor(concurrent * this.scale)));
      this.lanes.set(key, lane);
    }
    return lane;
  }
}
