/** The spec's rate limits per user, endpoint and operation, with the dynamic limit. */
import { RATE_LIMITS, RATE_WINDOW_MS, type RateLimitedOperation } from '../../contracts';
import { RateLimitedError } from '../core/errors';

/** Options of {@link RateLimiter}. */
export interface RateLimiterOptions {
  /**
   * Off for benchmarks of the raw engine.
   * @default true
   */
  enabled?: boolean;
  /**
   * The spec's `requests_per_worker` of the dynamic limit
   * `max(base, running_workers x requests_per_worker)`, per 10 s window.
   * @default 100
   */
  requestsPerWorker?: number;
  /** Base limits replacing the spec's (tests and benchmarks lower them); the dynamic limit still applies. */
  limits?: Partial<Record<RateLimitedOperation, { perWindow: number; concurrent: number | null }>>;
  /**
   * The window `perWindow` counts refer to, ms.
   * @default RATE_WINDOW_MS (10 s, the spec's)
   */
  windowMs?: number;
}

/** Requests of one user, endpoint and operation: admitted, and refused with 429. */
export interface RateCounts {
  admitted: number;
  limited: number;
}

/** Exact sliding window: the times of the requests admitted in the last 10 s, oldest first. */
interface Counter {
  times: number[];
  head: number;
  inflight: number;
  admitted: number;
  limited: number;
}

/**
 * Per user, endpoint and operation: an exact sliding 10 s window of requests and a count of
 * concurrent requests, against the spec's base limits raised by the dynamic limit.
 */
export class RateLimiter {
  private readonly counters = new Map<string, Counter>();
  private readonly enabled: boolean;
  private readonly requestsPerWorker: number;
  private readonly limits: Record<RateLimitedOperation, { perWindow: number; concurrent: number | null }>;
  private readonly windowMs: number;

  constructor(options: RateLimiterOptions = {}) {
    this.enabled = options.enabled ?? true;
    this.requestsPerWorker = options.requestsPerWorker ?? 100;
    this.limits = { ...RATE_LIMITS, ...options.limits };
    this.windowMs = options.windowMs ?? RATE_WINDOW_MS;
  }

  /** What this limiter counted for a user's endpoint and operation since it started. */
  counts(userId: string, endpointId: string, op: RateLimitedOperation): RateCounts {
    const c = this.counters.get(`${userId}\u0000${endpointId}\u0000${op}`);
    return { admitted: c?.admitted ?? 0, limited: c?.limited ?? 0 };
  }

  /**
   * Admits one request or throws {@link RateLimitedError} (429 with Retry-After).
   * Returns the function to call when the request has been answered.
   */
  admit(userId: string, endpointId: string, op: RateLimitedOperation, runningWorkers: number): () => void {
    if (!this.enabled) return noop;
    const base = this.limits[op];
    const dynamic = Math.round((runningWorkers * this.requestsPerWorker * this.windowMs) / RATE_WINDOW_MS);
    const perWindow = Math.max(base.perWindow, dynamic);
    const concurrent = base.concurrent === null ? null : Math.max(base.concurrent, Math.ceil(dynamic / 5));
    const key = `${userId}\u0000${endpointId}\u0000${op}`;
    const now = Date.now();
    let c = this.counters.get(key);
    if (!c) this.counters.set(key, (c = { times: [], head: 0, inflight: 0, admitted: 0, limited: 0 }));
    while (c.head < c.times.length && c.times[c.head]! <= now - this.windowMs) c.head++;
    if (c.head > 1024 && c.head * 2 > c.times.length) {
      c.times = c.times.slice(c.head);
      c.head = 0;
    }
    if (c.times.length - c.head >= perWindow) {
      c.limited++;
      const retryAfter = Math.max(1, Math.ceil((c.times[c.head]! + this.windowMs - now) / 1000));
      throw new RateLimitedError(
        `rate limit of ${perWindow} ${op} requests per ${this.windowMs / 1000} s exceeded`,
        retryAfter,
        { op, endpointId },
      );
    }
    if (concurrent !== null && c.inflight >= concurrent) {
      c.limited++;
      throw new RateLimitedError(`concurrency limit of ${concurrent} ${op} requests exceeded`, 1, { op, endpointId });
    }
    c.admitted++;
    c.times.push(now);
    c.inflight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      c.inflight--;
    };
  }
}

const noop = (): void => {};
