/**
 * An orchestration's progress over time, rebuilt from its outcomes (each input's submission and end
 * times, kept in the results store): completed, failed and in flight at up to `points` moments from
 * its start, whoever watched it then. Bounded: a fixed number of buckets, whatever the size.
 */

/** One moment of the history: epoch ms and the counts then. */
export interface HistoryPoint {
  at: number;
  completed: number;
  failed: number;
  inFlight: number;
}

/** What the tally reads of one ended input. */
export interface TimedOutcome {
  /** COMPLETED (or SKIPPED in a pipeline) counts as completed; anything else as failed. */
  ok: boolean;
  submittedAt?: number;
  endedAt: number;
}

/** Options of {@link OutcomeHistory}. */
export interface OutcomeHistoryOptions {
  /** Points of the history. @default 240 */
  points?: number;
}

/**
 * Counts ended inputs into buckets between `from` (the start) and `to` (the end, or now); `points()`
 * gives the cumulative counts at each bucket's end. Inputs in flight at `to` are not counted (the
 * live samples carry those).
 */
export class OutcomeHistory {
  private readonly n: number;
  private readonly width: number;
  private readonly ended: { ok: number[]; bad: number[] };
  private readonly started: number[];

  constructor(
    private readonly from: number,
    private readonly to: number,
    o: OutcomeHistoryOptions = {},
  ) {
    this.n = Math.max(2, o.points ?? 240);
    this.width = Math.max(1000, Math.ceil((to - from) / this.n));
    const zeros = () => new Array<number>(this.n).fill(0);
    this.ended = { ok: zeros(), bad: zeros() };
    this.started = zeros();
  }

  private bucket(at: number): number {
    return Math.min(this.n - 1, Math.max(0, Math.floor((at - this.from) / this.width)));
  }

  /** Counts one ended input. */
  add(o: TimedOutcome): void {
    (o.ok ? this.ended.ok : this.ended.bad)[this.bucket(o.endedAt)]!++;
    if (o.submittedAt !== undefined) this.started[this.bucket(o.submittedAt)]!++;
  }

  /** The cumulative counts at the end of each bucket up to `to`, the start (all zero) first. */
  points(): HistoryPoint[] {
    const out: HistoryPoint[] = [{ at: this.from, completed: 0, failed: 0, inFlight: 0 }];
    let ok = 0;
    let bad = 0;
    let started = 0;
    for (let i = 0; i < this.n; i++) {
      const at = Math.min(this.to, this.from + (i + 1) * this.width);
      ok += this.ended.ok[i]!;
      bad += this.ended.bad[i]!;
      started += this.started[i]!;
      out.push({ at, completed: ok, failed: bad, inFlight: Math.max(0, started - ok - bad) });
      if (at >= this.to) break;
    }
    return out;
  }
}
