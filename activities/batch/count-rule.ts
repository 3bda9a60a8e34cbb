/**
 * The endpoint's own count (the count rule), per batch: while a batch has jobs in flight, the
 * daemon asks the endpoint's `/health` every {@link COUNT_EVERY_MS} how many jobs it still holds
 * queued or running. At most that many of the batch's jobs (sent before the ask) can still be
 * running: the others finished and their webhooks are lost or late, so that many of its oldest are
 * polled {@link COUNT_GRACE_MS} after the ask (a webhook in transit at the ask is taken meanwhile),
 * whatever the late rule says (lateness.ts learns from heard times, which delayed webhooks, a
 * platform restart or a full queue lengthen to seconds: a lost webhook's job held its slot of the
 * window 3 s on average under issue 19's faults, the last jobs of a batch 8-30 s). The count covers
 * every client of the endpoint, so it can only be too high: fewer polls, never more than the jobs
 * found missing. An ask that finds none missing doubles the wait before the next, up to
 * {@link COUNT_EVERY_MAX_MS} (long jobs: one `/health` every few seconds per batch, not more); a
 * webhook heard brings it back to {@link COUNT_EVERY_MS} (jobs are finishing).
 * Pure: no clock, no I/O (in-flight.ts holds one per batch; steady-poll.ts asks).
 */

/** Wait between two asks of the endpoint's count while jobs finish (webhooks heard, or the last ask found some missing), ms. */
export const COUNT_EVERY_MS = 500;
/** Longest wait between two asks of the endpoint's count that found no job missing, ms. */
export const COUNT_EVERY_MAX_MS = 8000;
/** From an ask to the polls of the jobs it found missing: webhooks in transit at the ask are taken first, ms. */
export const COUNT_GRACE_MS = 250;

export class CountRule {
  /** Not before then, the next ask. */
  private askAt = 0;
  /** When the last ask was made (-Infinity: none yet). */
  private askedAt = -Infinity;
  private everyMs = COUNT_EVERY_MS;

  /** Jobs began to be in flight at `now` (none were): the first ask is {@link COUNT_EVERY_MS} later. */
  started(now: number): void {
    this.askAt = Math.max(this.askAt, now + COUNT_EVERY_MS);
  }

  /** A webhook of the batch was heard at `now`: jobs are finishing, the next ask {@link COUNT_EVERY_MS} after the last. */
  heard(_now: number): void {
    this.everyMs = COUNT_EVERY_MS;
    this.askAt = Math.min(this.askAt, this.askedAt + COUNT_EVERY_MS);
  }

  /** Whether to ask at `now`, with `inFlight` jobs: the wait since the last ask over. A yes holds the next ask back. */
  wants(inFlight: number, now: number): boolean {
    if (inFlight === 0 || now < this.askAt) return false;
    this.askedAt = now;
    this.askAt = now + this.everyMs;
    return true;
  }

  /** The ask at `askedAt` found `missing` of the batch's jobs finished (none or fewer: the wait doubles). */
  counted(missing: number, askedAt: number): void {
    if (missing > 0) {
      this.everyMs = COUNT_EVERY_MS;
      return;
    }
    this.everyMs = Math.min(COUNT_EVERY_MAX_MS, 2 * this.everyMs);
    this.askAt = Math.max(this.askAt, askedAt + this.everyMs);
  }
}
