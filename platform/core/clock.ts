/** The platform's clock: real time, or real time plus an offset tests can advance. */
/**
 * The platform's one notion of time. Every deadline (ttl, executionTimeout, retention) is
 * computed from `now()`, so tests can move time forward instead of waiting.
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that runs with real time plus an offset the caller can advance. */
export class AdjustableClock implements Clock {
  private offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
  /** Jumps forward by `ms`; the next sweep acts on every deadline that passed. */
  advance(ms: number): void {
    this.offset += ms;
  }
}
