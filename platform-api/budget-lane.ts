/**
 * One lane of the rate budget (an operation on an endpoint): the answer times of the last window,
 * the requests in flight, the waiters in priority order, and its congestion control (rate-control.ts:
 * the pause and the share of the window after confirmed 429 episodes). See rate-budget.ts.
 */
import { performance } from 'node:perf_hooks';
import { RateControl } from './rate-control';

/** A caller waiting for its turn in a lane. */
export interface Waiter {
  priority: number;
  since: number;
  grant: () => void;
  /** Withdraws the waiter unsent when it says so at its turn. */
  withdraw?: () => boolean;
}

/** Requests per window and at once (null: no concurrency limit). */
export type Limits = { perWindow: number; concurrent: number | null };

/** One (operation, endpoint): answer times of the last window, requests in flight, waiters, pause. */
export class Lane {
  /** When the answers of the requests still in the window came, oldest first. */
  private sent: number[] = [];
  private head = 0;
  private active = 0;
  private readonly waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Pause after a 429 and share of `perWindow` in use: reduced at most once per episode, back in three windows. */
  private readonly control: RateControl;

  constructor(
    private readonly limits: () => Limits,
    private readonly windowMs: number,
  ) {
    this.control = new RateControl({ windowMs });
  }

  get waiting(): number {
    return this.waiters.length;
  }

  enqueue(w: Waiter): void {
    // Behind every waiter of the same or a higher priority.
    let i = this.waiters.length;
    while (i > 0 && this.waiters[i - 1]!.priority < w.priority) i--;
    this.waiters.splice(i, 0, w);
    this.pump();
  }

  remove(w: Waiter): void {
    const i = this.waiters.indexOf(w);
    if (i >= 0) this.waiters.splice(i, 1);
    this.pump();
  }

  release(): void {
    const now = performance.now();
    this.sent.push(now);
    this.control.answered(now);
    this.active--;
    this.pump();
  }

  /** The service answered 429 asking to wait `ms`: see rate-control.ts. */
  rateLimited(ms: number): void {
    this.control.rateLimited(performance.now(), ms);
    this.pump();
  }

  /** Grants waiters in order while the window, the gate and any pause allow; else sets one timer. */
  pump(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const { concurrent, perWindow: limit } = this.limits();
    while (this.waiters.length > 0) {
      const now = performance.now();
      const pausedUntil = this.control.pausedUntil();
      if (pausedUntil > now) return this.wake(pausedUntil - now);
      const perWindow = Math.max(1, Math.floor(limit * this.control.share(now)));
      while (this.head < this.sent.length && this.sent[this.head]! <= now - this.windowMs) this.head++;
      if (this.head > 1024 && this.head * 2 > this.sent.length) {
        this.sent = this.sent.slice(this.head);
        this.head = 0;
      }
      if (concurrent !== null && this.active >= concurrent) return; // a release pumps again
      // In the window: every request in flight, and every answer of the last window.
      const answered = this.sent.length - this.head;
      const over = this.active + answered - perWindow + 1;
      if (over > 0) {
        // A share still recovering frees a place when it reaches one more than the window holds.
        const grown = perWindow < limit ? this.control.whenShare((perWindow + 1) / limit, now) - now : Infinity;
        // Else only a release (then its answer's expiry) frees a place, or the oldest answer's expiry.
        const expiry = over > answered ? Infinity : this.sent[this.head + over - 1]! + this.windowMs - now;
        if (Math.min(grown, expiry) === Infinity) return;
        return this.wake(Math.min(grown, expiry));
      }
      const w = this.waiters.shift()!;
      if (w.withdraw?.()) continue;
      this.active++;
      w.grant();
    }
  }

  private wake(ms: number): void {
    this.timer = setTimeout(() => this.pump(), Math.max(1, Math.ceil(ms)));
  }
}
