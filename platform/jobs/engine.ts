import { EventEmitter } from 'node:events';
import { type JobSubmission, type StreamChunk, isTerminal, resolvePolicy, LIMITS } from '../../contracts';
import { BadRequestError, NotFoundError } from '../core/errors';
import { type Clock } from '../core/clock';
import { jobId as newJobId } from '../core/ids';
import { deadlinesOf, type Job } from './job';
import { JobQueue, type TakeWaiter } from './queue';
import { type JobStore } from './store';
import { JobWatchers } from './watchers';
import { Deadlines } from './deadlines';
import { splitChunk } from './chunks';

/** Durations of the engine; the defaults are the spec's. */
export interface JobEngineOptions {
  clock: Clock;
  /** Result retention after a `/run` job finishes. Default 30 min. */
  retentionAsyncMs?: number;
  /** Result retention after a `/runsync` job finishes. Default 1 min. */
  retentionSyncMs?: number;
}

interface JobEngineEvents {
  /** A job entered the queue (submit, retry): scaling and dispatch react. */
  queued: [Job];
  /** A job reached a terminal state. */
  finished: [Job];
  /** A worker must stop running `jobId` (cancel, timeout, ttl). */
  stop: [workerId: string, jobId: string];
  /** A worker's job left it (finished, deleted): the worker may be idle now. */
  released: [workerId: string, jobId: string];
}

/**
 * The job state machine of the spec. Every transition goes through here, is written through
 * to SQLite, and wakes whoever waits on the job.
 */
export class JobEngine extends EventEmitter<JobEngineEvents> {
  readonly jobs = new Map<string, Job>();
  readonly queue = new JobQueue();
  readonly watchers = new JobWatchers();
  /** When each job next needs the sweeper. */
  readonly deadlines = new Deadlines();
  private readonly clock: Clock;
  private readonly retentionAsyncMs: number;
  private readonly retentionSyncMs: number;

  constructor(private readonly store: JobStore, options: JobEngineOptions) {
    super();
    this.clock = options.clock;
    this.retentionAsyncMs = options.retentionAsyncMs ?? LIMITS.retentionAsyncMs;
    this.retentionSyncMs = options.retentionSyncMs ?? LIMITS.retentionSyncMs;
  }

  /** Loads persisted jobs; jobs that were running when the platform died are failed (retryable). */
  recover(): { requeued: number; failed: number } {
    let requeued = 0;
    let failed = 0;
    for (const job of this.store.loadAll()) {
      this.jobs.set(job.id, job);
      for (const at of deadlinesOf(job)) this.deadlines.push(at, job.id);
      if (job.status === 'IN_QUEUE') {
        this.queue.push(job.endpointId, job.id);
        requeued++;
      } else if (job.status === 'IN_PROGRESS') {
        this.finish(job, 'FAILED', { error: 'the platform restarted while this job was running; retry it with /retry' });
        failed++;
      }
    }
    return { requeued, failed };
  }

  /** `/run` and `/runsync`: a new job in IN_QUEUE. */
  submit(endpointId: string, userId: string, body: JobSubmission, sync: boolean): Job {
    const now = this.clock.now();
    const policy = resolvePolicy(body.policy);
    const job: Job = {
      id: newJobId(), endpointId, userId, status: 'IN_QUEUE', sync, input: body.input, policy,
      submittedAt: now, queuedAt: now, ttlDeadline: now + policy.ttl, retries: 0, pendingChunks: [], chunkSeq: 0,
    };
    if (body.webhook !== undefined) job.webhook = body.webhook;
    if (body.s3Config !== undefined) job.s3Config = body.s3Config;
    this.store.insert(job);
    this.jobs.set(job.id, job);
    this.deadlines.push(job.ttlDeadline, job.id);
    this.enqueue(job);
    return job;
  }

  /** The job `jobId` of endpoint `endpointId`; 404 when unknown, expired or of another endpoint. */
  get(endpointId: string, jobId: string): Job {
    const job = this.jobs.get(jobId);
    if (!job || job.endpointId !== endpointId) throw new NotFoundError(`job ${jobId} not found`, { jobId });
    return job;
  }

  /**
   * Hands up to `max` queued jobs to a worker, waiting up to `waitMs` for one.
   * Resolves with the jobs now IN_PROGRESS on that worker (empty: nothing came).
   */
  take(endpointId: string, workerId: string, max: number, waitMs: number, isAlive: () => boolean): Promise<Job[]> {
    const ready = this.assign(this.queue.shift(endpointId, max), workerId);
    if (ready.length > 0 || waitMs <= 0) return Promise.resolve(ready);
    return new Promise<Job[]>((resolve) => {
      const waiter: TakeWaiter = {
        workerId,
        max,
        isAlive,
        deliver: (ids) => {
          clearTimeout(timer);
          resolve(this.assign(ids, workerId));
        },
        cancel: () => {
          clearTimeout(timer);
          resolve([]);
        },
      };
      const timer = setTimeout(() => {
        this.queue.removeWaiter(endpointId, waiter);
        resolve([]);
      }, waitMs);
      this.queue.addWaiter(endpointId, waiter);
    });
  }

  /** Ends a worker's pending `job-take` waits with no job (the worker is being stopped). */
  cancelTakes(endpointId: string, workerId: string): void {
    for (const w of this.queue.takeWaitersOf(endpointId, workerId)) w.cancel();
  }

  /** Returns jobs a worker could not receive (its request died) to the head of the queue. */
  giveBack(jobs: Job[]): void {
    for (const job of jobs) {
      if (job.status !== 'IN_PROGRESS') continue;
      job.status = 'IN_QUEUE';
      delete job.startedAt;
      delete job.workerId;
      this.store.update(job);
      this.queue.pushFront(job.endpointId, [job.id]);
    }
    for (const endpointId of new Set(jobs.map((j) => j.endpointId))) this.dispatch(endpointId);
  }

  /** A `progress_update` from the worker; ignored once the job has left IN_PROGRESS (it can arrive late). */
  progress(workerId: string, job: Job, output: unknown): void {
    if (job.status !== 'IN_PROGRESS' || job.workerId !== workerId) return;
    job.progress = output;
    this.store.update(job);
    this.watchers.notify(job.id);
  }

  /** A stream chunk from the worker; chunks over the size limit are split. */
  appendChunk(workerId: string, job: Job, chunk: StreamChunk): void {
    if (job.status !== 'IN_PROGRESS' || job.workerId !== workerId) return;
    for (const part of splitChunk(chunk, LIMITS.streamChunkBytes)) {
      this.store.addChunk(job.id, job.chunkSeq++, part);
      job.pendingChunks.push(part);
    }
    this.watchers.notify(job.id);
  }

  /** `job-done` from the worker: COMPLETED, or FAILED when an `error` is present. Late results are ignored. */
  complete(workerId: string, job: Job, result: { output?: unknown; error?: unknown }): boolean {
    if (job.status !== 'IN_PROGRESS' || job.workerId !== workerId) return false;
    const failed = result.error !== undefined && result.error !== null && result.error !== '' && result.error !== false;
    this.finish(job, failed ? 'FAILED' : 'COMPLETED', result);
    return true;
  }

  /** `/cancel`: a queued job is removed at once, a running one is stopped on its worker; a finished one is left as it is. */
  cancel(job: Job): Job {
    if (job.status === 'IN_QUEUE') {
      this.queue.remove(job.endpointId, job.id);
      this.finish(job, 'CANCELLED', {});
    } else if (job.status === 'IN_PROGRESS') {
      const workerId = job.workerId;
      this.finish(job, 'CANCELLED', {});
      if (workerId) this.emit('stop', workerId, job.id);
    }
    return job;
  }

  /** `/retry`: FAILED or TIMED_OUT back to IN_QUEUE with the same id and input, output cleared. */
  retry(job: Job): Job {
    if (job.status !== 'FAILED' && job.status !== 'TIMED_OUT') {
      throw new BadRequestError(`job ${job.id} is ${job.status}; only FAILED or TIMED_OUT jobs can be retried`, { jobId: job.id });
    }
    job.status = 'IN_QUEUE';
    job.queuedAt = this.clock.now();
    job.retries++;
    for (const k of ['startedAt', 'completedAt', 'retentionUntil', 'output', 'error', 'progress', 'workerId'] as const) delete job[k];
    job.pendingChunks = [];
    this.store.clearChunks(job.id);
    this.store.update(job);
    this.enqueue(job);
    return job;
  }

  /** `/purge-queue`: every queued job of the endpoint is cancelled; running jobs continue. */
  purge(endpointId: string): number {
    const ids = this.queue.shift(endpointId, Number.MAX_SAFE_INTEGER);
    for (const id of ids) {
      const job = this.jobs.get(id);
      if (job) this.finish(job, 'CANCELLED', { error: 'removed by /purge-queue' });
    }
    return ids.length;
  }

  /** `/status?ttl=`: a new lifespan, still counted from submission. */
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

  /** Deletes a job whatever its state (ttl, retention); a running one is stopped on its worker. */
  delete(job: Job): void {
    if (job.status === 'IN_QUEUE') this.queue.remove(job.endpointId, job.id);
    if (job.status === 'IN_PROGRESS' && job.workerId) {
      this.emit('stop', job.workerId, job.id);
      this.emit('released', job.workerId, job.id);
    }
    this.jobs.delete(job.id);
    this.store.delete(job.id);
    this.watchers.notify(job.id);
  }

  /** Moves a job to a terminal state with its result, sets its retention and wakes its waiters. */
  finish(job: Job, status: 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TIMED_OUT', result: { output?: unknown; error?: unknown }): void {
    const now = this.clock.now();
    const workerId = job.status === 'IN_PROGRESS' ? job.workerId : undefined;
    job.status = status;
    job.completedAt = now;
    job.retentionUntil = now + (job.sync ? this.retentionSyncMs : this.retentionAsyncMs);
    this.deadlines.push(job.retentionUntil, job.id);
    if (result.output !== undefined) job.output = result.output;
    if (result.error !== undefined) job.error = result.error;
    delete job.progress;
    this.store.update(job);
    this.watchers.notify(job.id);
    if (workerId) this.emit('released', workerId, job.id);
    this.emit('finished', job);
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

  /** Resolves once every change made so far is on disk: await it before acknowledging a change. */
  persisted(): Promise<void> {
    return this.store.persisted();
  }

  /** True when the job is terminal (or gone). */
  isDone(jobId: string): boolean {
    const job = this.jobs.get(jobId);
    return !job || isTerminal(job.status);
  }

  private enqueue(job: Job): void {
    this.queue.push(job.endpointId, job.id);
    this.emit('queued', job);
    this.dispatch(job.endpointId);
  }

  /** Hands queued jobs to waiting workers, oldest waiter first. */
  dispatch(endpointId: string): void {
    while (this.queue.size(endpointId) > 0) {
      const waiter = this.queue.nextWaiter(endpointId);
      if (!waiter) return;
      waiter.deliver(this.queue.shift(endpointId, waiter.max));
    }
  }

  private assign(ids: string[], workerId: string): Job[] {
    const now = this.clock.now();
    const out: Job[] = [];
    for (const id of ids) {
      const job = this.jobs.get(id);
      if (!job || job.status !== 'IN_QUEUE') continue;
      job.status = 'IN_PROGRESS';
      job.startedAt = now;
      job.workerId = workerId;
      this.deadlines.push(now + job.policy.executionTimeout, job.id);
      this.store.update(job);
      this.watchers.notify(job.id);
      out.push(job);
    }
    return out;
  }
}
