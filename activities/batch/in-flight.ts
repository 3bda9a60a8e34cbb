/**
 * The daemon's memory of its batches' jobs in flight (by batch workflow id, so it outlives
 * continue-as-new): when each was sent, when it was last polled, when it is late (lateness.ts),
 * the records polls found and no step took yet, and the jobs that ended (so a late report of one
 * does not make it tracked again). An accelerator only: the workflow's ledger stays the truth, and
 * a job this daemon does not know is still polled by the workflow's fallback.
 */
import { type JobRecord } from '../../contracts';
import { Lateness } from './lateness';

/** One job in flight as the daemon knows it. */
export interface Tracked {
  id: string;
  /** When it was sent (ms since epoch). */
  t0: number;
  /** When to poll it next, when a poll set it (or its answer was replayed); else once late (lateness.ts). */
  pollAt?: number;
  /** When it was last polled (0: never). */
  polledAt: number;
  /** A poll of it is under way. */
  busy?: boolean;
}

/** A job a poll found finished, kept until a step of its batch takes it. */
export interface Found {
  record: JobRecord;
  /** When it was sent (ms since epoch). */
  t0: number;
}

/** Ended jobs remembered per batch (the latest). */
const ENDED_KEPT = 10_000;

interface Batch {
  jobs: Map<string, Tracked>;
  lateness: Lateness;
  found: Found[];
  /** Ids of jobs that ended (heard of, or found by a poll), oldest first. */
  ended: Set<string>;
  /** A batch's usual time of a job in the queue and running, as polls found them (moving average), ms. */
  tookMs?: number;
}

export class InFlightJobs {
  private readonly batches = new Map<string, Batch>();

  /**
   * Job `id` of batch `wf` was sent at `now` (or is known to run); `pollAt`: poll it then (default:
   * once late). A job that ended is not tracked again (a step reporting its answer after its webhook
   * came), unless `again` (it was retried under the same id).
   */
  add(wf: string, id: string, now = Date.now(), pollAt?: number, again = false): void {
    const b = this.batch(wf);
    if (again) b.ended.delete(id);
    else if (b.ended.has(id)) return;
    const known = b.jobs.get(id);
    if (!known) b.jobs.set(id, { id, t0: now, polledAt: 0, ...(pollAt !== undefined ? { pollAt } : {}) });
    else if (pollAt !== undefined) known.pollAt = Math.min(known.pollAt ?? Infinity, pollAt);
  }

  /** Job `id` of batch `wf` finished; `heard`: by its webhook (its time is a sample of the batch's). Returns it. */
  done(wf: string, id: string, heard: boolean, now = Date.now()): Tracked | undefined {
    const b = this.batch(wf);
    this.ended(b, id);
    const t = b.jobs.get(id);
    if (!t) return undefined;
    b.jobs.delete(id);
    if (heard) b.lateness.heard(t.t0, now);
    return t;
  }

  /** A poll found job `record.id` of batch `wf` finished: it is no longer in flight, and kept for the next {@link takeFound}. */
  found(wf: string, record: JobRecord): void {
    const t = this.done(wf, record.id, false);
    this.batch(wf).found.push({ record, t0: t?.t0 ?? Date.now() });
  }

  /** The records polls found since the last call (each once). */
  takeFound(wf: string): Found[] {
    const b = this.batches.get(wf);
    if (!b || b.found.length === 0) return [];
    const out = b.found;
    b.found = [];
    return out;
  }

  /** A call of batch `wf` to the service failed at `now` (unanswered): see lateness.ts. */
  failed(wf: string, now = Date.now()): void {
    this.batch(wf).lateness.failed(now);
  }

  /** A job of batch `wf` took `ms` in the queue and running (a poll found it finished). */
  took(wf: string, ms: number): void {
    const b = this.batch(wf);
    b.tookMs = b.tookMs === undefined ? ms : 0.8 * b.tookMs + 0.2 * ms;
  }

  /** The usual time of a job of batch `wf` in the queue and running, as far as polls tell, ms. */
  usualMs(wf: string): number | undefined {
    return this.batches.get(wf)?.tookMs;
  }

  /** How old a job of batch `wf` is when it is late (its webhook should have come), ms. */
  lateMs(wf: string): number {
    return this.batch(wf).lateness.lateMs();
  }

  /** The jobs of batch `wf`, oldest first. */
  of(wf: string): Tracked[] {
    return [...(this.batches.get(wf)?.jobs.values() ?? [])].sort((a, b) => a.t0 - b.t0);
  }

  /** The jobs of batch `wf` due for a poll at `now` while webhooks arrive (polls set their own time; else once late), oldest first. */
  late(wf: string, now = Date.now()): Tracked[] {
    const b = this.batches.get(wf);
    if (!b) return [];
    const lateMs = b.lateness.lateMs();
    return this.of(wf).filter(
      (t, rank) => !t.busy && (t.pollAt !== undefined ? now >= t.pollAt : b.lateness.isLate(t.t0 + lateMs, rank, now)),
    );
  }

  /** Forgets batch `wf` (it ended). */
  drop(wf: string): void {
    this.batches.delete(wf);
  }

  private ended(b: Batch, id: string): void {
    b.ended.delete(id);
    b.ended.add(id);
    if (b.ended.size > ENDED_KEPT) b.ended.delete(b.ended.values().next().value!);
  }

  private batch(wf: string): Batch {
    let b = this.batches.get(wf);
    if (!b) this.batches.set(wf, (b = { jobs: new Map(), lateness: new Lateness(), found: [], ended: new Set() }));
    return b;
  }
}
