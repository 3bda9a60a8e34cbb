/**
 * Congestion control of one rate-budget lane, per rate window: a 429 is a signal about the
 * service's window, not a penalty per answer. Pure: every method takes the time, so a table of
 * answers gives the same shares and pauses with no clock or server.
 *
 * The rule (AIMD in the spirit of TCP, counted in windows instead of round trips):
 * - The first 429 of an **episode** pauses the lane until its `Retry-After` (a 429 answered
 *   while paused lengthens the pause to its own); a 429 later in the episode, once the pause is
 *   over, pauses only its own request (the caller waits the Retry-After), not the whole lane.
 *   Every 429 answered within one window of the first, or while a pause asked for within the
 *   episode lasts, belongs to the same episode.
 * - An episode multiplies the share of `perWindow` by {@link RateControlOptions.decrease} at most
 *   once, and only once its 429s show a full window: at least {@link RateControlOptions.confirmRefused}
 *   of them, and at least {@link RateControlOptions.confirmFraction} of the lane's answers in the
 *   episode. A storm (another client filling the service's window) refuses most requests and is
 *   confirmed at its third 429; stray 429s (a proxy, 2 % of answers at random) cost their own
 *   `Retry-After` and one pause, never a cut: a lane running at its full limit that cut to 70 % of
 *   its window sent nothing until the window drained below the cut, a stop of three tenths of a
 *   window per stray 429 (issue 19's 429 row).
 * - Recovery is linear, from the reduced share back to the full limit over
 *   {@link RateControlOptions.recoveryWindows} windows, counted from the end of the pause or the
 *   latest 429 of a confirmed episode, whichever is later (such a 429 restarts the count without
 *   reducing). Linear rather than per-answer: a lane's clean answers arrive at its reduced rate,
 *   so crediting per answer makes recovery slower the deeper the cut (the old "quarter place per
 *   answer" needed minutes); by time, one episode costs at most its pause plus three windows of
 *   a reduced (never less than `decrease`) share, whatever the lane's traffic. A lane with no
 *   traffic has no evidence against the full limit, so it recovers too; a confirmed episode in
 *   recovery reduces from the share reached.
 */

/** Options of {@link RateControl}. */
export interface RateControlOptions {
  /** The window the service counts in (the lane's window), ms. */
  windowMs: number;
  /**
   * Factor applied to the share by the first 429 of an episode. 0.7 (CUBIC's): the pause already
   * clears the overload of the moment; the cut only keeps the lane from bursting into it again.
   * @default 0.7
   */
  decrease?: number;
  /**
   * Windows of clean answers from the reduced share back to the full limit.
   * @default 3
   */
  recoveryWindows?: number;
  /**
   * Lowest share after repeated episodes (the lane still sends at least one request per window).
   * @default 0.05
   */
  minShare?: number;
  /**
   * 429s an episode needs before it reduces the share (with {@link confirmFraction}).
   * @default 3
   */
  confirmRefused?: number;
  /**
   * Least fraction of the lane's answers in the episode (429s included) that are 429s before it
   * reduces the share: stray 429s among clean answers are not a full window.
   * @default 0.125
   */
  confirmFraction?: number;
}

/** The state of one lane's congestion control; see the module rule. */
export class RateControl {
  private readonly windowMs: number;
  private readonly decrease: number;
  private readonly recoveryMs: number;
  private readonly minShare: number;
  private readonly confirmRefused: number;
  private readonly confirmFraction: number;
  /** Share right after the last reduction (1 before any). */
  private low = 1;
  /** Until when 429s belong to the current episode. */
  private episodeEnd = -Infinity;
  /** When the linear recovery from `low` starts (end of the pause or the latest 429). */
  private recoverFrom = -Infinity;
  private paused = -Infinity;
  private episodeCount = 0;
  private cutCount = 0;
  /** The current episode's 429s, its answers (429s included), and whether it reduced the share. */
  private refused = 0;
  private answers = 0;
  private confirmed = false;

  constructor(opts: RateControlOptions) {
    this.windowMs = opts.windowMs;
    this.decrease = opts.decrease ?? 0.7;
    this.recoveryMs = (opts.recoveryWindows ?? 3) * opts.windowMs;
    this.minShare = opts.minShare ?? 0.05;
    this.confirmRefused = opts.confirmRefused ?? 3;
    this.confirmFraction = opts.confirmFraction ?? 0.125;
    if (!(this.decrease > 0 && this.decrease < 1)) throw new RangeError('rate control decrease must be in (0, 1)');
  }

  /** The service answered 429 at `now`, asking to wait `retryAfterMs`: pause, and reduce once per confirmed episode. */
  rateLimited(now: number, retryAfterMs: number): void {
    const until = now + Math.max(0, retryAfterMs);
    if (now >= this.episodeEnd) {
      this.paused = Math.max(this.paused, until);
      this.episodeEnd = Math.max(now + this.windowMs, this.paused);
      this.episodeCount++;
      this.refused = 0;
      this.answers = 0;
      this.confirmed = false;
    } else if (now < this.paused) {
      // Answered while the lane is paused (sent before the pause): it says nothing new; its
      // Retry-After, if later, lengthens the pause and the episode.
      this.paused = Math.max(this.paused, until);
      this.episodeEnd = Math.max(this.episodeEnd, this.paused);
    }
    // A 429 after the episode's pause, inside the episode, pauses only its own request (its caller
    // waits the Retry-After): isolated 429s (a proxy, a brief spike) must not stop the lane again and again.
    this.refused++;
    if (!this.confirmed && this.refused >= this.confirmRefused) {
      // This 429's own answer is counted when its request ends (after this call).
      if (this.refused >= this.confirmFraction * (this.answers + 1)) {
        this.confirmed = true;
        this.low = Math.max(this.minShare, this.share(now) * this.decrease);
        this.cutCount++;
      }
    }
    if (this.confirmed) this.recoverFrom = Math.max(this.recoverFrom, now, this.paused);
  }

  /** A request of the lane ended at `now` (a 429 too, after {@link rateLimited}): the episode's 429s are weighed against these. */
  answered(now: number): void {
    if (now < this.episodeEnd) this.answers++;
  }

  /** The fraction of `perWindow` the lane may use at `now`, in [minShare, 1]. */
  share(now: number): number {
    if (this.low >= 1) return 1;
    if (now <= this.recoverFrom) return this.low;
    const progress = (now - this.recoverFrom) / this.recoveryMs;
    return progress >= 1 ? 1 : this.low + (1 - this.low) * progress;
  }

  /** The first time from `now` at which the share reaches `target` (<= 1): a lane's window grows while it recovers. */
  whenShare(target: number, now: number): number {
    if (this.share(now) >= target) return now;
    const from = Math.max(now, this.recoverFrom);
    const at = this.recoverFrom + ((target - this.low) / (1 - this.low)) * this.recoveryMs;
    return Math.max(from, Math.ceil(at));
  }

  /** Until when the lane sends nothing (a time in the past when it is not paused). */
  pausedUntil(): number {
    return this.paused;
  }

  /** Episodes so far: each one paused the lane once. */
  get episodes(): number {
    return this.episodeCount;
  }

  /** Reductions of the share so far: at most one per episode, only for confirmed ones. */
  get cuts(): number {
    return this.cutCount;
  }
}
