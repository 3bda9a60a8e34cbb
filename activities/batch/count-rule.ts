/**
 * The endpoint's own count (the count rule), per batch: once no webhook of a batch with jobs in
 * flight was heard for {@link QUIET_MS}, the daemon asks the endpoint's `/health` how many jobs it
 * still holds queued or running. At most that many of the batch's jobs (sent before the ask) can
 * still be running: the others finished and their webhooks are late, so that many of its oldest are
 * polled at once, whatever the late rule says (lateness.ts learns from heard times, which a platform
 * restart or a full queue lengthens: the last jobs of a batch waited 8-30 s for it, issue 19). The
 * count covers every client of the endpoint, so it can only be too high: fewer polls, never more
 * than the jobs found missing. An ask that finds none missing doubles the wait before the next, up
 * to {@link COUNT_EVERY_MAX_MS} (long jobs: one `/health` every few seconds per batch, not more).
 * Pure: no clock, no I/O (in-flight.ts holds one per batch; steady-poll.ts asks).
 */

/** How long no webhook of a batch with jobs in flight is heard before the endpoint's count is asked, ms. */
export const QUIET_MS = 1000;
/** Longest wait between two asks of the endpoint's count that found no job missing, ms. */
export const COUNT_EVERY_MAX_MS = 8000;

export class CountRule {
  /** When a webhook was last heard, or jobs began to be in flight (ms since epoch). */
  private heardAt = 0;
  /** Not before then, the next ask. */
  private askAt = 0;
  private everyMs = QUIET_MS;

  /** Jobs began to be in flight at `now` (none were): the quiet counts from then. */
  started(now: number): void {
    this.heardAt = Math.max(this.heardAt, now);
  }

  /** A webhook of the batch was heard at `now`: the quiet alone holds the next ask back. */
  heard(now: number): void {
    this.heardAt = Math.max(this.heardAt, now);
    this.everyMs = QUIET_MS;
    this.askAt = Math.min(this.askAt, now);
  }

  /** Whether to ask at `now`, with `inFlight` jobs: quiet for {@link QUIET_MS}, the wait since the last ask over. A yes holds the next ask back. */
  wants(inFlight: number, now: number): boolean {
    if (inFlight === 0 || now - this.heardAt < QUIET_MS || now < this.askAt) return false;
    this.askAt = now + this.everyMs;
    return true;
  }

  /** The ask at `askedAt` found `missing` of the batch's jobs finished (none or fewer: the wait doubles). */
  counted(missing: number, askedAt: number): void {
    if (missing > 0) {
      this.everyMs = QUIET_MS;
      return;
    }
    this.everyMs = Math.min(COUNT_EVERY_MAX_MS, 2 * this.everyMs);
    this.askAt = Math.max(this.askAt, askedAt + this.everyMs);
  }
}
