/**
 * When a batch's job is late (its webhook should have come, so it is polled): learnt from the
 * batch's latest heard times (from sending a job to taking its webhook). Pure: no clock, no I/O.
 *
 * The rule:
 * - A job is late once older than {@link LATE_FACTOR} times the longest of the batch's last
 *   {@link SAMPLES} heard times, within [{@link LATE_MIN_MS}, {@link LATE_MAX_MS}]. Why the longest:
 *   of 65 jobs of the same batch the one heard last is any of them alike, so a healthy job outlasts
 *   all of the 64 before it one time in 65 at most, and by half again far more rarely: about one
 *   job in a hundred or fewer is polled for nothing. Heard times are skewed (a job waits behind up
 *   to the window's concurrency of others, a step's wait batches webhooks): the former rule, three
 *   times their moving average, polled the slow end of every batch and followed outliers.
 * - Until the batch has heard of {@link MIN_SAMPLES} jobs, what it heard is its fastest jobs only
 *   (the slow ones of the first window are not heard yet): only its {@link PROBES} oldest jobs in
 *   flight are late then (after {@link LATE_DEFAULT_MS} before any is heard), as many as it takes
 *   to notice that no webhook comes at all (results/webhook-health.ts: three misses); a job whose
 *   webhook was lost becomes one of them as the others are heard.
 * - A failure of the service (a call it did not answer: the platform restarting) resets what was
 *   learnt, and a job sent before it is no sample: its time measures the outage, not the batch,
 *   and would make every later job late only after the outage's length.
 */

/** Heard times kept per batch (the latest). */
export const SAMPLES = 64;
/** Heard times before the rule applies to every job (before, only the oldest few are late). */
export const MIN_SAMPLES = 32;
/** The margin above the longest heard time. */
export const LATE_FACTOR = 1.5;
/** Bounds of when a job is late, ms. */
export const LATE_MIN_MS = 400;
export const LATE_MAX_MS = 30_000;
/** Before the batch has heard of any job: the late age of its oldest jobs, ms. */
export const LATE_DEFAULT_MS = 500;
/** Until the rule applies: how many of the batch's oldest jobs in flight may be late. */
export const PROBES = 5;

/** One batch's heard times and the last failure of the service, as the rule above reads them. */
export class Lateness {
  private readonly ring: number[] = [];
  private next = 0;
  /** When the service last failed a call of the batch (ms since epoch; -Infinity: never). */
  private failedAt = -Infinity;

  /** A job sent at `sentAt` was heard of (its webhook taken) at `now`. */
  heard(sentAt: number, now: number): void {
    if (sentAt <= this.failedAt) return;
    const ms = Math.max(0, now - sentAt);
    if (this.ring.length < SAMPLES) this.ring.push(ms);
    else this.ring[this.next] = ms;
    this.next = (this.next + 1) % SAMPLES;
  }

  /** The service failed a call at `now`: what was learnt is forgotten, and the jobs sent before it are no samples. */
  failed(now: number): void {
    this.failedAt = Math.max(this.failedAt, now);
    this.ring.length = 0;
    this.next = 0;
  }

  /** How many heard times the rule has (0: none since the batch's start or the last failure). */
  get samples(): number {
    return this.ring.length;
  }

  /** How old a job is when it is late, ms. */
  lateMs(): number {
    if (this.ring.length === 0) return LATE_DEFAULT_MS;
    const longest = Math.max(...this.ring);
    return Math.min(LATE_MAX_MS, Math.max(LATE_MIN_MS, Math.round(LATE_FACTOR * longest)));
  }

  /**
   * Whether a job is late at `now`, given its `lateAt` (a poll's own schedule, see in-flight.ts)
   * and its `rank` among the batch's jobs in flight by age (0: the oldest).
   */
  isLate(lateAt: number, rank: number, now: number): boolean {
    return now >= lateAt && (this.ring.length >= MIN_SAMPLES || rank < PROBES);
  }
}
