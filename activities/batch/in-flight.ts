/**
 * The daemon's memory of its batches' jobs in flight (by batch workflow id, so it outlives
 * continue-as-new): when each was sent, when it was last polled, when it is late (lateness.ts),
 * the records polls found and no step took yet, and the jobs that ended (so a late report of one
 * does not make it tracked again). A job `/retry`ed under its id is in flight as a later run: a
 * webhook of an earlier run (late or duplicated) does not end it, or its own lost webhook would
 * wait for the workflow's fallback poll. An accelerator only: the workflow's ledger stays the
 * truth, and a job this daemon does not know is still polled by the workflow's fallback.
 * While a batch has jobs in flight, the endpoint's count says how many of its oldest to poll soon
 * (count-rule.ts).
 */
import { type JobRecord } from '../../contracts';
import { COUNT_GRACE_MS, CountRule } from './count-rule';
import { Lateness } from './lateness';

/** One job in flight as the daemon knows it. */
export interface Tracked {
  id: string;
  /** The run it is in flight as: the `/retry`s of its id before it, as far as this daemon knows. */
  r: number;
  /** When it was sent (ms since epoch). */
  t0: number;
  /** When to poll it next, when a poll set it (or its answer was replayed); else once late (lateness.ts). */
  pollAt?: number;
  /** When it was last polled (0: never). */
  polledAt: number;
  /** A poll of it is under way. */
  busy?: boolean;
  /** When the poll under way started (ms since epoch). */
  busySince?: number;
  /** The count found it missing while its poll was slow: polled again beside it (the first answer ends it). */
  hedge?: boolean;
  /**
   * Known from a replayed submission's answer only (an earlier submission's job, maybe sent by a
   * daemon that died): its webhook went to whoever sent it, so a poll finding it done is no miss.
   */
  replayed?: boolean;
}

/**
 * Whether a poll finding a job finished counts as a missed webhook of this daemon (results/webhook-health.ts):
 * only for a job it tracked (`t`: the entry the poll ended) and sent itself. A job it never knew (a dead
 * daemon's, polled by the step after a restart) or knew from a replayed answer only had its webhook sent to another.
 */
export const missedIfFound = (t: Tracked | undefined): boolean => t !== undefined && t.replayed !== true;

/** A job a poll found finished, kept until a step of its batch takes it. */
export interface Found {
  record: JobRecord;
  /** When it was sent (ms since epoch). */
  t0: number;
}

/** How long a poll is under way before a job the count finds missing is polled again beside it, ms. */
export const HEDGE_AFTER_MS = 1000;

/** Ended jobs remembered per batch (the latest). */
const ENDED_KEPT = 10_000;

interface Batch {
  jobs: Map<string, Tracked>;
  lateness: Lateness;
  found: Found[];
  /** Jobs that ended (heard of, or found by a poll), oldest first: id to the run that ended. */
  ended: Map<string, number>;
  /** A batch's usual time of a job in the queue and running, as polls found them (moving average), ms. */
  tookMs?: number;
  count: CountRule;
}

export class InFlightJobs {
  private readonly batches = new Map<string, Batch>();

  /**
   * Job `id` of batch `wf` was sent at `now` (or is known to run); `pollAt`: poll it then (default:
   * once late). A job that ended is not tracked again (a step reporting its answer after its webhook
   * came), unless `again`: it was retried under the same id, and is in flight as the run after the
   * one that ended (a new entry: a poll of the run before answers for nothing, see {@link tracks}).
   */
  add(wf: string, id: string, now = Date.now(), pollAt?: number, again = false): void {
    const b = this.batch(wf);
    if (b.jobs.size === 0) b.count.started(now);
    const at = pollAt !== undefined ? { pollAt } : {};
    if (again) {
      const r = Math.max(1, (b.ended.get(id) ?? 0) + 1);
      b.ended.delete(id);
      b.jobs.set(id, { id, r, t0: now, polledAt: 0, ...at });
      return;
    }
    if (b.ended.has(id)) return;
    const known = b.jobs.get(id);
    if (!known) b.jobs.set(id, { id, r: 0, t0: now, polledAt: 0, ...at });
    else if (pollAt !== undefined) known.pollAt = Math.min(known.pollAt ?? Infinity, pollAt);
  }

  /**
   * Job `id` of batch `wf` was reported to the workflow by a later step than the one that sent it
   * (docs/batch.md "Late answers"): if it ended already, its record went to a step before the
   * workflow knew the job, which dropped it; it is tracked again and polled at once, else the
   * workflow's fallback poll (30 s) would be the first to find it. Else as {@link add}.
   */
  recheck(wf: string, id: string, dup?: boolean, now = Date.now()): void {
    const b = this.batch(wf);
    const run = b.ended.get(id);
    if (run === undefined) return dup ? this.replayed(wf, id, now) : this.add(wf, id, now);
    b.ended.delete(id);
    b.jobs.set(id, { id, r: run, t0: now, polledAt: 0, pollAt: now });
  }

  /**
   * A replayed submission of batch `wf` was answered with job `id` (an earlier submission's: it may
   * have finished long ago, its webhook gone to the daemon that sent it): polled at once; a job this
   * daemon did not track is marked {@link Tracked.replayed} (found done, no missed webhook).
   */
  replayed(wf: string, id: string, now = Date.now()): void {
    const b = this.batch(wf);
    const had = b.jobs.has(id);
    this.add(wf, id, now, 0);
    const t = b.jobs.get(id);
    if (t && !had) t.replayed = true;
  }

  /** Whether `t` is still batch `wf`'s entry of its job (not ended, nor replaced by a retry's run). */
  tracks(wf: string, t: Tracked): boolean {
    return this.batches.get(wf)?.jobs.get(t.id) === t;
  }

  /**
   * Job `id` of batch `wf` finished; `heard`: by its webhook (its time is a sample of the batch's),
   * whose record counts `run` (its `retries`; absent: 0). A webhook of a run before the one in flight
   * ends nothing (a service that does not count runs: the retried job is then found by its polls).
   * Returns the job ended.
   */
  done(wf: string, id: string, heard: boolean, now = Date.now(), run?: number): Tracked | undefined {
    const b = this.batch(wf);
    if (heard) b.count.heard(now);
    const t = b.jobs.get(id);
    if (heard && t && (run ?? 0) < t.r) return undefined;
    this.ended(b, id, run ?? t?.r ?? 0);
    if (!t) return undefined;
    b.jobs.delete(id);
    if (heard) b.lateness.heard(t.t0, now);
    return t;
  }

  /** A poll found job `record.id` of batch `wf` finished: it is no longer in flight, and kept for the next {@link takeFound}. Returns the job ended. */
  found(wf: string, record: JobRecord): Tracked | undefined {
    const t = this.done(wf, record.id, false, Date.now(), record.retries ?? 0);
    this.batch(wf).found.push({ record, t0: t?.t0 ?? Date.now() });
    return t;
  }

  /** Records taken by a step that failed: kept for the next step (their jobs are not in flight any more, nor polled again). */
  giveBack(wf: string, found: Found[]): void {
    if (found.length > 0) this.batch(wf).found.unshift(...found);
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
      (t, rank) =>
        (!t.busy || t.hedge === true) &&
        (t.pollAt !== undefined ? now >= t.pollAt : b.lateness.isLate(t.t0 + lateMs, rank, now)),
    );
  }

  /** Whether to ask the endpoint's count for batch `wf` at `now` (count-rule.ts); a yes holds the next ask back. */
  wantsCount(wf: string, now = Date.now()): boolean {
    const b = this.batches.get(wf);
    return b !== undefined && b.count.wants(b.jobs.size, now);
  }

  /**
   * The endpoint held `open` jobs queued or running when asked at `askedAt`: the batch's jobs sent
   * before beyond that many finished, so that many of its oldest (not polled since the ask) are
   * due {@link COUNT_GRACE_MS} after the ask (those whose webhook was in transit are heard
   * meanwhile, and not polled); one whose poll has been under way {@link HEDGE_AFTER_MS} is polled
   * again beside it. Returns how many were made due.
   */
  counted(wf: string, open: number, askedAt: number, now = Date.now()): number {
    const b = this.batches.get(wf);
    if (!b) return 0;
    const sent = this.of(wf).filter((t) => t.t0 <= askedAt);
    const missing = sent.length - Math.max(0, open);
    b.count.counted(missing, askedAt);
    let due = 0;
    for (const t of sent) {
      if (due >= missing) break;
      if (t.polledAt > askedAt) continue;
      if (t.busy) {
        // Its poll is slow (an answer 1-4 s late under faults held the batch's last job): polled again beside it.
        if (!t.hedge && askedAt - (t.busySince ?? askedAt) >= HEDGE_AFTER_MS) {
          t.hedge = true;
          t.pollAt = Math.max(now, askedAt + COUNT_GRACE_MS);
          due++;
        }
        continue;
      }
      t.pollAt = Math.min(t.pollAt ?? Infinity, Math.max(now, askedAt + COUNT_GRACE_MS));
      due++;
    }
    return due;
  }

  /** Forgets batch `wf` (it ended). */
  drop(wf: string): void {
    this.batches.delete(wf);
  }

  private ended(b: Batch, id: string, run: number): void {
    const had = b.ended.get(id);
    b.ended.delete(id);
    b.ended.set(id, Math.max(had ?? 0, run));
    if (b.ended.size > ENDED_KEPT) b.ended.delete(b.ended.keys().next().value!);
  }

  private batch(wf: string): Batch {
    let b = this.batches.get(wf);
    if (!b) {
      b = {
        jobs: new Map(),
        lateness: new Lateness(),
        found: [],
        ended: new Map(),
        count: new CountRule(),
      };
      this.batches.set(wf, b);
    }
    return b;
  }
}
