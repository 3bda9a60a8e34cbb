/** The clock-driven rules: executionTimeout, ttl and the end of result retention. */
import { isTerminal } from '../../contracts';
import { type Clock } from '../core/clock';
import { type JobEngine } from './engine';

/**
 * Applies the clock-driven rules of the spec: `executionTimeout` (only while running) makes a
 * job TIMED_OUT, `ttl` (from submission) deletes a job in any state, and the end of result
 * retention deletes a finished job.
 */
export function sweep(engine: JobEngine, now: number): { timedOut: number; expired: number } {
  let timedOut = 0;
  let expired = 0;
  // Only jobs with a deadline due are looked at: the cost does not grow with retained jobs.
  for (const id of engine.due(now)) {
    const job = engine.jobs.find(id);
    if (!job) continue;
    if (
      now >= job.ttlDeadline ||
      (job.retentionUntil !== undefined && isTerminal(job.status) && now >= job.retentionUntil)
    ) {
      engine.delete(job);
      expired++;
    } else if (
      job.status === 'IN_PROGRESS' &&
      job.startedAt !== undefined &&
      now - job.startedAt >= job.policy.executionTimeout
    ) {
      engine.timeOut(job);
      timedOut++;
    }
  }
  engine.compactDeadlines();
  return { timedOut, expired };
}

/** Runs {@link sweep} on an interval of real time against the (possibly adjusted) clock. */
export class Sweeper {
  private timer: NodeJS.Timeout | undefined;
  constructor(
    private readonly engine: JobEngine,
    private readonly clock: Clock,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => sweep(this.engine, this.clock.now()), this.intervalMs);
    this.timer.unref();
  }

  /** Runs a sweep now (tests that move the clock call this through the platform). */
  runOnce(): ReturnType<typeof sweep> {
    return sweep(this.engine, this.clock.now());
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
