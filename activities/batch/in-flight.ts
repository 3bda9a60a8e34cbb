/**
 * The daemon's memory of its batches' jobs in flight (by batch workflow id, so it outlives
 * continue-as-new): when each was sent, when it was last polled, and how long a job of the batch
 * takes to be heard of. An accelerator only: the workflow's ledger stays the truth, and a job this
 * daemon does not know is still polled by the workflow's fallback.
 */

/** One job in flight as the daemon knows it. */
export interface Tracked {
  id: string;
  /** When it was sent (ms since epoch). */
  t0: number;
  /** When to poll it next while webhooks arrive (late jobs only). */
  lateAt: number;
  /** When it was last polled (0: never). */
  polledAt: number;
  /** A poll of it is under way. */
  busy?: boolean;
}

/** Until a batch has heard of a job, a job older than this is late, ms. */
const LATE_DEFAULT_MS = 500;
/** Bounds of when a job is late, ms: three times the batch's usual time to be heard of, within these. */
const LATE_MIN_MS = 400;
const LATE_MAX_MS = 30_000;

export class InFlightJobs {
  private readonly runs = new Map<string, Map<string, Tracked>>();
  /** A batch's usual time from sending a job to hearing its webhook (moving average), ms. */
  private readonly heardIn = new Map<string, number>();
  /** A batch's usual time of a job in the queue and running, as polls found them (moving average), ms. */
  private readonly tookMs = new Map<string, number>();

  /** Job `id` of batch `wf` was sent (or is known to run); `lateAt`: poll it then (default: once late). */
  add(wf: string, id: string, now = Date.now(), lateAt = now + this.lateMs(wf)): void {
    const jobs = this.jobsOf(wf);
    const known = jobs.get(id);
    if (known) known.lateAt = Math.min(known.lateAt, lateAt);
    else jobs.set(id, { id, t0: now, lateAt, polledAt: 0 });
  }

  /** Job `id` of batch `wf` finished; `heard`: by its webhook (its time counts toward the usual). Returns it. */
  done(wf: string, id: string, heard: boolean, now = Date.now()): Tracked | undefined {
    const jobs = this.runs.get(wf);
    const t = jobs?.get(id);
    if (!t) return undefined;
    jobs!.delete(id);
    if (!heard) return t;
    const before = this.heardIn.get(wf);
    const took = now - t.t0;
    this.heardIn.set(wf, before === undefined ? took : 0.8 * before + 0.2 * took);
    return t;
  }

  /** A job of batch `wf` took `ms` in the queue and running (a poll found it finished). */
  took(wf: string, ms: number): void {
    const before = this.tookMs.get(wf);
    this.tookMs.set(wf, before === undefined ? ms : 0.8 * before + 0.2 * ms);
  }

  /** The usual time of a job of batch `wf` in the queue and running, as far as polls tell, ms. */
  usualMs(wf: string): number | undefined {
    return this.tookMs.get(wf);
  }

  /** How old a job of batch `wf` is when it is late (its webhook should have come). */
  lateMs(wf: string): number {
    const usual = this.heardIn.get(wf);
    if (usual === undefined) return LATE_DEFAULT_MS;
    return Math.min(LATE_MAX_MS, Math.max(LATE_MIN_MS, 3 * usual));
  }

  /** The jobs of batch `wf`, oldest first. */
  of(wf: string): Tracked[] {
    return [...(this.runs.get(wf)?.values() ?? [])].sort((a, b) => a.t0 - b.t0);
  }

  /** Forgets batch `wf` (it ended). */
  drop(wf: string): void {
    this.runs.delete(wf);
    this.heardIn.delete(wf);
    this.tookMs.delete(wf);
  }

  private jobsOf(wf: string): Map<string, Tracked> {
    let jobs = this.runs.get(wf);
    if (!jobs) this.runs.set(wf, (jobs = new Map()));
    return jobs;
  }
}
