/**
 * One lane of the rate budget (an operation on an endpoint): the answer times of the last window,
 * the requests in flight, the waiters in priority order, and a pause after a 429. See rate-budget.ts.
 */
import { performance } from 'node:perf_hooks';

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
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  /**
   * Share of `perWindow` in use: halved by each 429 (someone else uses the same limit), given back
   * a quarter place per answered request (back from half in about three windows of traffic). Keeps
   * a lane that meets 429s from bursting into them again after every pause.
   */
  private share = 1;

  constructor(
    private readonly limits: () => Limits,
    private readonly windowMs: number,
  ) {}

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
    this.sent.push(performance.now());
    this.active--;
    this.share = Math.min(1, this.share + 1 / (4 * this.limits().perWindow));
    this.pump();
  }

  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, performance.now() + ms);
    this.share = Math.max(1 / this.limits().perWindow, this.share / 2);
    this.pump();
  }

  /** Grants waiters in order while the window, the gate and any pause allow; else sets one timer. */
  pump(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const { concurrent } = this.limits();
    const perWindow = Math.max(1, Math.floor(this.limits().perWindow * this.share));
    while (this.waiters.length > 0) {
      const now = performance.now();
      if (this.pausedUntil > now) return this.wake(this.pausedUntil - now);
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
        if (over > answered) return; // only a release (then its answer's expiry) frees a place
        return this.wake(this.sent[this.head + over - 1]! + this.windowMs - now);
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
