/** Every job the platform holds and each change of its state, written through, on the deadline heap and woken. */
import { isTerminal, LIMITS, type StreamChunk } from '../../contracts';
import { type Clock } from '../core/clock';
import { NotFoundError } from '../core/errors';
import { splitChunk } from './chunks';
import { Deadlines } from './deadlines';
import { deadlinesOf, type Job } from './job';
import { type JobStore } from './store';
import { JobWatchers } from './watchers';

/** The index key of an idempotency key: scoped per user and endpoint. */
const keyOf = (userId: string, endpointId: string, key: string): string => `${userId}\u0000${endpointId}\u0000${key}`;

/** The `/health` jobs block of one endpoint. */
export interface JobCounts {
  completed: number;
  /** FAILED and TIMED_OUT. */
  failed: number;
  inProgress: number;
  inQueue: number;
  /** Held jobs retried at least once. */
  retried: number;
}

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
export type JobReader = Pick<JobStates, 'find' | 'get' | 'ofEndpoint' | 'counts' | 'isDone' | 'watch' | 'byIdempotencyKey'>;

/**
 * The jobs of the platform, by id and by endpoint. Each change is written through to SQLite,
 * keeps the deadline heap current and wakes whoever waits on the job. It decides nothing: the
 * engine says which change happens and when.
 */
export class JobStates {
  private readonly jobs = new Map<string, Job>();
  private readonly byEndpoint = new Map<string, Set<Job>>();
  /** Jobs submitted with an `Idempotency-Key`, by user, endpoint and key: held as long as the job is. */
  private readonly byKey = new Map<string, Job>();
  /** When each job next needs the sweeper. */
  private readonly deadlines = new Deadlines();
  private readonly watchers = new JobWatchers();

  constructor(private readonly store: JobStore, private readonly clock: Clock, private readonly retention: Retention) {}

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

  /** The job `jobId` if the platform still holds it. */
  find(jobId: string): Job | undefined {
    return this.jobs.get(jobId);
  }

  /** The job `jobId` of endpoint `endpointId`; 404 when unknown, expired or of another endpoint. */
  get(endpointId: string, jobId: string): Job {
    const job = this.jobs.get(jobId);
    if (!job || job.endpointId !== endpointId) throw new NotFoundError(`job ${jobId} not found`, { jobId });
    return job;
  }

  /** The job the user submitted to the endpoint with `Idempotency-Key: key`, while the platform holds it. */
  byIdempotencyKey(userId: string, endpointId: string, key: string): Job | undefined {
    return this.byKey.get(keyOf(userId, endpointId, key));
  }

  /** The jobs the platform holds for the endpoint (queued, running, and finished within retention). */
  ofEndpoint(endpointId: string): Job[] {
    return [...(this.byEndpoint.get(endpointId) ?? [])];
  }

  /** The `/health` jobs block: only the endpoint's own jobs are looked at. */
  counts(endpointId: string): JobCounts {
    const counts = { completed: 0, failed: 0, inProgress: 0, inQueue: 0, retried: 0 };
    for (const j of this.byEndpoint.get(endpointId) ?? []) {
      if (j.status === 'COMPLETED') counts.completed++;
      else if (j.status === 'FAILED' || j.status === 'TIMED_OUT') counts.failed++;
      else if (j.status === 'IN_PROGRESS') counts.inProgress++;
      else if (j.status === 'IN_QUEUE') counts.inQueue++;
      if (j.retries > 0) counts.retried++;
    }
    return counts;
  }

  /** True when the job is terminal (or gone). */
  isDone(jobId: string): boolean {
    const job = this.jobs.get(jobId);
    return !job || isTerminal(job.status);
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
    for (const k of ['startedAt', 'completedAt', 'retentionUntil', 'output', 'error', 'progress', 'workerId'] as const) delete job[k];
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
    this.jobs.delete(job.id);
    const mine = this.byEndpoint.get(job.endpointId);
    mine?.delete(job);
    if (mine?.size === 0) this.byEndpoint.delete(job.endpointId);
    if (job.idempotencyKey !== undefined) this.byKey.delete(keyOf(job.userId, job.endpointId, job.idempotencyKey));
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

  private index(job: Job): void {
    this.jobs.set(job.id, job);
    let mine = this.byEndpoint.get(job.endpointId);
    if (!mine) this.byEndpoint.set(job.endpointId, (mine = new Set()));
    mine.add(job);
    if (job.idempotencyKey !== undefined) this.byKey.set(keyOf(job.userId, job.endpointId, job.idempotencyKey), job);
  }
}
