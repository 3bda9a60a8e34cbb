/** Each change of a job's state: written through to SQLite, put on the deadline heap and woken (lookups: ./job-index). */
import { LIMITS, type StreamChunk } from '../../contracts';
import { type Clock } from '../core/clock';
import { splitChunk } from './chunks';
import { Deadlines } from './deadlines';
import { deadlinesOf, type Job } from './job';
import { JobIndex } from './job-index';
import { type JobStore } from './store';
import { JobWatchers } from './watchers';

export { type JobCounts } from './job-index';

/** The terminal states a job can be moved to. */
export type FinalStatus = 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TIMED_OUT';

/** What a job ends with. */
export interface JobResult {
  output?: unknown;
  error?: unknown;
}

/** How long results are kept after a job finished. */
export interface Retention {
  asyncMs: number;
  syncMs: number;
}

/** The read side of the jobs, offered to everyone: lookups never change a job. */
export type JobReader = Pick<
  JobStates,
  'find' | 'get' | 'ofEndpoint' | 'counts' | 'isDone' | 'watch' | 'byIdempotencyKey'
>;

/**
 * The jobs of the platform (looked up through {@link JobIndex}) and each change of their state:
 * written through to SQLite, keeping the deadline heap current and waking whoever waits on the
 * job. It decides nothing: the engine says which change happens and when.
 */
export class JobStates extends JobIndex {
  /** When each job next needs the sweeper. */
  private readonly deadlines = new Deadlines();
  private readonly watchers = new JobWatchers();

  constructor(
    private readonly store: JobStore,
    private readonly clock: Clock,
    private readonly retention: Retention,
  ) {
    super();
  }

  /** Loads every persisted job (at start-up). */
  load(): Job[] {
    const jobs = this.store.loadAll();
    for (const job of jobs) {
      this.index(job);
      for (const at of deadlinesOf(job)) this.deadlines.push(at, job.id);
    }
    return jobs;
  }

  /** A new job, stored and due at its ttl. */
  add(job: Job): void {
    this.store.insert(job);
    this.index(job);
    this.deadlines.push(job.ttlDeadline, job.id);
  }

  /** Resolves on the next change of `jobId` or after `ms`, whichever comes first. */
  watch(jobId: string, ms: number, signal?: AbortSignal): Promise<void> {
    return this.watchers.next(jobId, ms, signal);
  }

  /** IN_QUEUE → IN_PROGRESS on `workerId`, due at its executionTimeout. */
  start(job: Job, workerId: string, now: number): void {
    job.status = 'IN_PROGRESS';
    job.startedAt = now;
    job.workerId = workerId;
    this.deadlines.push(now + job.policy.executionTimeout, job.id);
    this.store.update(job);
    this.watchers.notify(job.id);
  }

  /** IN_PROGRESS → IN_QUEUE: a hand-over that never reached the worker (its queue time stays). */
  unstart(job: Job): void {
    job.status = 'IN_QUEUE';
    delete job.startedAt;
    delete job.workerId;
    this.store.update(job);
  }

  /** Back to IN_QUEUE for `/retry`: output, error, progress and stream cleared, one more retry counted. */
  reset(job: Job): void {
    job.status = 'IN_QUEUE';
    job.queuedAt = this.clock.now();
    job.retries++;
    for (const k of ['startedAt', 'completedAt', 'retentionUntil', 'output', 'error', 'progress', 'workerId'] as const)
      delete job[k];
    job.pendingChunks = [];
    this.store.clearChunks(job.id);
    this.store.update(job);
  }

  /** The latest `progress_update` output. */
  progress(job: Job, output: unknown): void {
    job.progress = output;
    this.store.update(job);
    this.watchers.notify(job.id);
  }

  /** A stream chunk; chunks over the size limit are split. */
  appendChunk(job: Job, chunk: StreamChunk): void {
    for (const part of splitChunk(chunk, LIMITS.streamChunkBytes)) {
      this.store.addChunk(job.id, job.chunkSeq++, part);
      job.pendingChunks.push(part);
    }
    this.watchers.notify(job.id);
  }

  /** A new lifespan, still counted from submission. */
  setTtl(job: Job, ttlMs: number): void {
    job.policy = { ...job.policy, ttl: ttlMs };
    job.ttlDeadline = job.submittedAt + ttlMs;
    this.deadlines.push(job.ttlDeadline, job.id);
    this.store.update(job);
  }

  /** Hands out the chunks not yet delivered; each chunk is delivered exactly once. */
  drainStream(job: Job): StreamChunk[] {
    if (job.pendingChunks.length === 0) return [];
    const out = job.pendingChunks;
    job.pendingChunks = [];
    this.store.update(job);
    this.store.dropDelivered(job);
    return out;
  }

  /**
   * Moves a job to a terminal state with its result, sets its retention and wakes its waiters.
   * Returns the worker the job was running on, if it was running.
   */
  finish(job: Job, status: FinalStatus, result: JobResult): string | undefined {
    const now = this.clock.now();
    const workerId = job.status === 'IN_PROGRESS' ? job.workerId : undefined;
    job.status = status;
    job.completedAt = now;
    job.retentionUntil = now + (job.sync ? this.retention.syncMs : this.retention.asyncMs);
    this.deadlines.push(job.retentionUntil, job.id);
    if (result.output !== undefined) job.output = result.output;
    if (result.error !== undefined) job.error = result.error;
    delete job.progress;
    this.store.update(job);
    this.watchers.notify(job.id);
    return workerId;
  }

  /** Forgets the job and its stored rows; its waiters wake to find it gone. */
  remove(job: Job): void {
    this.unindex(job);
    this.store.delete(job.id);
    this.watchers.notify(job.id);
  }

  /** The ids of the jobs with a deadline due at `now`, each once (they may have changed since: re-check them). */
  due(now: number): Set<string> {
    return new Set(this.deadlines.popDue(now));
  }

  /**
   * Rebuilds the deadline heap from the jobs that exist when deleted jobs left too many stale
   * entries behind (a ttl entry outlives a job deleted at the end of its retention).
   */
  compactDeadlines(): void {
    if (this.deadlines.size <= 3 * this.jobs.size + 10_000) return;
    this.deadlines.clear();
    for (const job of this.jobs.values()) for (const at of deadlinesOf(job)) this.deadlines.push(at, job.id);
  }

  /** Commits queued writes now (the store batches them per event-loop turn). */
  flush(): void {
    this.store.flush();
  }

  /** Resolves once every change made so far is on disk. */
  persisted(): Promise<void> {
    return this.store.persisted();
  }
}
