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
}

/** Exact sliding window: the times of the requests admitted in the last 10 s, oldest first. */
interface Counter {
  times: number[];
  head: number;
  inflight: number;
}

/**
 * Per user, endpoint and operation: an exact sliding 10 s window of requests and a count of
 * concurrent requests, against the spec's base limits raised by the dynamic limit.
 */
export class RateLimiter {
  private readonly counters = new Map<string, Counter>();
  private readonly enabled: boolean;
  private readonly requestsPerWorker: number;

  constructor(options: RateLimiterOptions = {}) {
    this.enabled = options.enabled ?? true;
    this.requestsPerWorker = options.requestsPerWorker ?? 100;
  }

  /**
   * Admits one request or throws {@link RateLimitedError} (429 with Retry-After).
   * Returns the function to call when the request has been answered.
   */
  admit(userId: string, endpointId: string, op: RateLimitedOperation, runningWorkers: number): () => void {
    if (!this.enabled) return noop;
    const base = RATE_LIMITS[op];
    const dynamic = runningWorkers * this.requestsPerWorker;
    const perWindow = Math.max(base.perWindow, dynamic);
    const concurrent = base.concurrent === null ? null : Math.max(base.concurrent, Math.ceil(dynamic / 5));
    const key = `${userId}\u0000${endpointId}\u0000${op}`;
    const now = Date.now();
    let c = this.counters.get(key);
    if (!c) this.counters.set(key, (c = { times: [], head: 0, inflight: 0 }));
    while (c.head < c.times.length && c.times[c.head]! <= now - RATE_WINDOW_MS) c.head++;
    if (c.head > 1024 && c.head * 2 > c.times.length) {
      c.times = c.times.slice(c.head);
      c.head = 0;
    }
    if (c.times.length - c.head >= perWindow) {
      const retryAfter = Math.max(1, Math.ceil((c.times[c.head]! + RATE_WINDOW_MS - now) / 1000));
      throw new RateLimitedError(`rate limit of ${perWindow} ${op} requests per 10 s exceeded`, retryAfter, { op, endpointId });
    }
    if (concurrent !== null && c.inflight >= concurrent) {
      throw new RateLimitedError(`concurrency limit of ${concurrent} ${op} requests exceeded`, 1, { op, endpointId });
    }
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
