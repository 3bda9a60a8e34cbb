/**
 * The timers that wake the `--per-job-workflows` loop: one per write period (outcomes are written at
 * least that often) and one for the deadline, not one per wait (each timer costs history events).
 */
import { CancellationScope, sleep } from '@temporalio/workflow';

export class LoopTimers {
  /** A write period has passed since the first outcome not written yet (the loop writes, then clears it). */
  flushDue = false;
  private flushArmed = false;
  private deadline: number | undefined = undefined;

  /** `wake` tells the loop that a timer fired. */
  constructor(
    private readonly flushMs: number,
    private readonly wake: () => void,
  ) {}

  /** Starts the write period's timer unless one runs. */
  armFlush(): void {
    if (this.flushArmed) return;
    this.flushArmed = true;
    void CancellationScope.nonCancellable(() => sleep(this.flushMs)).then(() => {
      this.flushArmed = false;
      this.flushDue = true;
      this.wake();
    });
  }

  /** Starts a timer for the deadline `at`, once per deadline (none when it has passed or there is none). */
  armDeadline(at: number | undefined, now: number): void {
    if (at === undefined || at <= now || this.deadline === at) return;
    this.deadline = at;
    void CancellationScope.nonCancellable(() => sleep(at - now)).then(() => this.wake());
  }
}
