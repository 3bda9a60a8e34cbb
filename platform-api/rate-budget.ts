/**
 * Client-side rate budget: keeps one process under the service's limits (contracts RATE_LIMITS) per
 * endpoint and operation, so load is shaped here instead of being answered with 429s. Each
 * (operation, endpoint) lane is a sliding window plus a concurrency gate, shared by every caller of
 * the process, served by priority (FIFO within one), and paused as a whole by a 429, whose share
 * of the window is reduced at most once per 429 episode (when its 429s show a full window, not
 * stray ones) and recovers within three windows (rate-control.ts).
 *
 * The window is kept so that the service's own sliding window can never see more than `perWindow`,
 * whatever the network and server delays: a request occupies the window from the moment it is sent
 * until `windowMs` after its answer came (the service counted it at some time in between).
 */
import { performance } from 'node:perf_hooks';
import { RATE_LIMITS, RATE_WINDOW_MS, type RateLimitedOperation } from '../contracts/limits';
import { Lane, type Limits, type Waiter } from './budget-lane';

/** Options of {@link RateBudget}. */
export interface RateBudgetOptions {
  /** False turns every acquire into a no-op. Default true. */
  enabled?: boolean;
  /**
   * Multiplies rate and concurrency (floored, at least 1). Use < 1 when several processes share
   * one key and endpoint, > 1 when the endpoint is known to run enough workers; see {@link RateBudget.setScale}.
   * @default 1
   */
  scale?: number;
  /** Overrides of the contract limits, mainly for tests. */
  limits?: Partial<Record<RateLimitedOperation, { perWindow: number; concurrent: number | null }>>;
  /** Window the `perWindow` counts refer to, ms. Default RATE_WINDOW_MS (10 s). */
  windowMs?: number;
  /**
   * Added to the window before a request leaves it (timer and clock granularity).
   * @default 0.2 % of the window, at least 2 ms
   */
  marginMs?: number;
}

/** Per-acquire options. */
export interface AcquireOptions {
  signal?: AbortSignal;
  /**
   * Higher is served first; waiters of one priority are served in order of arrival. While a
   * higher-priority waiter waits, no lower one is served.
   * @default 5
   */
  priority?: number;
  /** Told how long the budget held this call (ms), when it had to wait at all. */
  onWait?: (ms: number) => void;
  /**
   * Asked when the call's turn comes after a wait: true withdraws it unsent, rejecting with
   * {@link BudgetWithdrawnError} (e.g. a lower-priority batch yielding to a higher one).
   */
  withdrawIf?: () => boolean;
}

/** A call withdrawn from the budget's queue by its `withdrawIf` before it was sent. */
export class BudgetWithdrawnError extends Error {
  readonly code = 'BUDGET_WITHDRAWN' as const;
  constructor() {
    super('withdrawn from the rate budget before it was sent');
    this.name = 'BudgetWithdrawnError';
  }
}

/** Gives the slot back; calling it more than once is harmless. */
export type Release = () => void;

/** Priority of callers that give none (also the default batch priority). */
export const DEFAULT_PRIORITY = 5;

const NOOP: Release = () => undefined;

/** Per (operation, endpoint) lanes of one process. */
export class RateBudget {
  private readonly lanes = new Map<string, Lane>();
  private readonly enabled: boolean;
  private scale: number;
  private readonly windowMs: number;
  private readonly marginMs: number;
  private readonly limits: Record<RateLimitedOperation, Limits>;

  constructor(opts: RateBudgetOptions = {}) {
    this.enabled = opts.enabled ?? true;
    this.scale = opts.scale ?? 1;
    this.windowMs = opts.windowMs ?? RATE_WINDOW_MS;
    this.marginMs = opts.marginMs ?? Math.max(2, Math.ceil(this.windowMs / 500));
    this.limits = { ...RATE_LIMITS, ...opts.limits };
    if (!(this.scale > 0)) throw new RangeError('rate budget scale must be > 0');
  }

  /** The multiplier in force. */
  get currentScale(): number {
    return this.scale;
  }

  /** Changes the multiplier (e.g. this process's share among several); waiters see it at once. */
  setScale(scale: number): void {
    if (!(scale > 0)) throw new RangeError('rate budget scale must be > 0');
    if (scale === this.scale) return;
    this.scale = scale;
    for (const lane of this.lanes.values()) lane.pump();
  }

  /** The limits of `operation` as this budget applies them (scaled). */
  limitsOf(operation: RateLimitedOperation): Limits {
    const { perWindow, concurrent } = this.limits[operation];
    return {
      perWindow: Math.max(1, Math.floor(perWindow * this.scale)),
      concurrent: concurrent === null ? null : Math.max(1, Math.floor(concurrent * this.scale)),
    };
  }

  /**
   * Waits for a concurrency slot and a place in the window of `operation` on `endpointId`, then
   * returns the release of the slot; call it when the request has finished. Timers, no polling.
   */
  acquire(operation: RateLimitedOperation, endpointId = '', opts: AcquireOptions | AbortSignal = {}): Promise<Release> {
    const o: AcquireOptions = opts instanceof AbortSignal ? { signal: opts } : opts;
    if (!this.enabled) return Promise.resolve(NOOP);
    o.signal?.throwIfAborted();
    const lane = this.lane(operation, endpointId);
    return new Promise<Release>((resolve, reject) => {
      const onAbort = (): void => {
        lane.remove(w);
        reject(o.signal?.reason as Error);
      };
      const w: Waiter = {
        priority: o.priority ?? DEFAULT_PRIORITY,
        since: performance.now(),
        grant: () => {
          o.signal?.removeEventListener('abort', onAbort);
          const waited = performance.now() - w.since;
          if (waited >= 1) o.onWait?.(Math.round(waited));
          let released = false;
          resolve(() => {
            if (!released) lane.release();
            released = true;
          });
        },
      };
      const withdrawIf = o.withdrawIf;
      if (withdrawIf) {
        w.withdraw = () => {
          if (performance.now() - w.since < 1 || !withdrawIf()) return false;
          o.signal?.removeEventListener('abort', onAbort);
          reject(new BudgetWithdrawnError());
          return true;
        };
      }
      o.signal?.addEventListener('abort', onAbort, { once: true });
      lane.enqueue(w);
    });
  }

  /** Runs `fn` inside the budget of `operation` on `endpointId`. */
  async run<T>(
    operation: RateLimitedOperation,
    endpointId: string,
    fn: () => Promise<T>,
    opts: AcquireOptions | AbortSignal = {},
  ): Promise<T> {
    const release = await this.acquire(operation, endpointId, opts);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /**
   * Holds every waiter of `operation` on `endpointId` for `ms` (the service answered 429 with
   * this Retry-After): one pause for the whole lane instead of each caller retrying on its own.
   * An episode (the 429s answered within one window) whose 429s show a full window (at least 3,
   * and an eighth of the lane's answers meanwhile) also reduces the lane's share of its window to
   * 70 %, once; it is back to the full limit three windows after its last 429 (rate-control.ts).
   */
  pause(operation: RateLimitedOperation, endpointId: string, ms: number): void {
    if (this.enabled && ms >= 0) this.lane(operation, endpointId).rateLimited(ms);
  }

  /** Callers waiting now in the lane of `operation` on `endpointId`. */
  waiting(operation: RateLimitedOperation, endpointId: string): number {
    return this.lanes.get(laneKey(operation, endpointId))?.waiting ?? 0;
  }

  private lane(operation: RateLimitedOperation, endpointId: string): Lane {
    const key = laneKey(operation, endpointId);
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = new Lane(() => this.limitsOf(operation), this.windowMs + this.marginMs)));
    return lane;
  }
}

const laneKey = (operation: string, endpointId: string): string => `${operation}\u0000${endpointId}`;
