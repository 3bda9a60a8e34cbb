/** The job state machine of the spec: the operations on jobs, the queue, and the events the pool reacts to. */
import { EventEmitter } from 'node:events';
import { type JobSubmission, type StreamChunk, resolvePolicy, LIMITS } from '../../contracts';
import { type Clock } from '../core/clock';
import { BadRequestError } from '../core/errors';
import { jobId as newJobId } from '../core/ids';
import { type Job } from './job';
import { JobStates, type FinalStatus, type JobReader, type JobResult } from './job-states';
import { JobQueue } from './queue';
import { type JobStore } from './store';

/** Durations of the engine; the defaults are the spec's. */
export interface JobEngineOptions {
  clock: Clock;
  /**
   * Result retention after a `/run` job finishes, in ms.
   * @default 1800000 (30 min)
   */
  retentionAsyncMs?: number;
  /**
   * Result retention after a `/runsync` job finishes, in ms.
   * @default 60000 (1 min)
   */
  retentionSyncMs?: number;
  /**
   * The endpoint's own default `executionTimeout` (its `executionTimeoutMs`), used when a job's
   * policy gives none.
   * @default none: the spec's 600000 ms
   */
  endpointExecutionTimeoutMs?: (endpointId: string) => number | undefined;
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
 * The job state machine of the spec. Every transition goes through here; {@link JobStates}
 * writes it through to SQLite and wakes whoever waits on the job.
 */
export class JobEngine extends EventEmitter<JobEngineEvents> {
  private readonly states: JobStates;
  private readonly queue = new JobQueue();
  private readonly clock: Clock;
  private readonly endpointTimeout: (endpointId: string) => number | undefined;
  /** Reading jobs: lookups, `/health` counts and waiting for a change. */
  readonly jobs: JobReader;
  /** Jobs created by `/run` and `/runsync` since start, per endpoint (not replays of an idempotency key). */
  private readonly createdPerEndpoint = new Map<string, number>();

  constructor(store: JobStore, options: JobEngineOptions) {
    super();
    this.clock = options.clock;
    this.endpointTimeout = options.endpointExecutionTimeoutMs ?? (() => undefined);
    this.states = new JobStates(store, options.clock, {
      asyncMs: options.retentionAsyncMs ?? LIMITS.retentionAsyncMs,
      syncMs: options.retentionSyncMs ?? LIMITS.retentionSyncMs,
    });
    this.jobs = this.states;
  }

  /** Loads persisted jobs; jobs that were running when the platform died are failed (retryable). */
  recover(): { requeued: number; failed: number } {
    let requeued = 0;
    let failed = 0;
    for (const job of this.states.load()) {
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

  /**
   * `/run` and `/runsync`: a new job in IN_QUEUE. With an `idempotencyKey` the job is remembered
   * under it (per user and endpoint) for as long as the platform holds it: see {@link JobReader}'s
   * `byIdempotencyKey`, which the caller asks first.
   */
  submit(endpointId: string, userId: string, body: JobSubmission, sync: boolean, idempotencyKey?: string): Job {
    const now = this.clock.now();
    const policy = resolvePolicy({ executionTimeout: this.endpointTimeout(endpointId), ...body.policy });
    const job: Job = {
      id: newJobId(), endpointId, userId, status: 'IN_QUEUE', sync, input: body.input, policy,
      submittedAt: now, queuedAt: now, ttlDeadline: now + policy.ttl, retries: 0, pendingChunks: [], chunkSeq: 0,
    };
    if (body.webhook !== undefined) job.webhook = body.webhook;
    if (body.s3Config !== undefined) job.s3Config = body.s3Config;
    if (idempotencyKey !== undefined) job.idempotencyKey = idempotencyKey;
    this.states.add(job);
    this.createdPerEndpoint.set(endpointId, this.created(endpointId) + 1);
    this.enqueue(job);
    return job;
  }

  /** How many jobs `/run` and `/runsync` created on the endpoint since the platform started (replays excluded). */
  created(endpointId: string): number {
    return this.createdPerEndpoint.get(endpointId) ?? 0;
  }

  /** The endpoint's queued jobs, oldest first. */
  queued(endpointId: string): Job[] {
    return this.queue.ids(endpointId).map((id) => this.states.find(id)).filter((j): j is Job => !!j);
  }

  /**
   * Hands up to `max` queued jobs to a worker, waiting up to `waitMs` for one.
   * Resolves with the jobs now IN_PROGRESS on that worker (empty: nothing came).
   */
  take(endpointId: string, workerId: string, max: number, waitMs: number, isAlive: () => boolean): Promise<Job[]> {
    const assign = (ids: string[]): Job[] => this.assign(ids, workerId);
    const ready = assign(this.queue.shift(endpointId, max));
    if (ready.length > 0 || waitMs <= 0) return Promise.resolve(ready);
    return this.queue.wait(endpointId, { workerId, max, isAlive }, waitMs, assign);
  }

  /** Ends a worker's pending `job-take` waits with no job (the worker is being stopped). */
  cancelTakes(endpointId: string, workerId: string): void {
    this.queue.cancelWaits(endpointId, workerId);
  }

  /** Returns jobs a worker could not receive (its request died) to the head of the queue. */
  giveBack(jobs: Job[]): void {
    for (const job of jobs) {
      if (job.status !== 'IN_PROGRESS') continue;
      this.states.unstart(job);
      this.queue.pushFront(job.endpointId, [job.id]);
    }
    for (const endpointId of new Set(jobs.map((j) => j.endpointId))) this.queue.dispatch(endpointId);
  }

  /** A `progress_update` from the worker; ignored once the job has left IN_PROGRESS (it can arrive late). */
  progress(workerId: string, job: Job, output: unknown): void {
    if (job.status !== 'IN_PROGRESS' || job.workerId !== workerId) return;
    this.states.progress(job, output);
  }

  /** A stream chunk from the worker; chunks over the size limit are split. */
  appendChunk(workerId: string, job: Job, chunk: StreamChunk): void {
    if (job.status !== 'IN_PROGRESS' || job.workerId !== workerId) return;
    this.states.appendChunk(job, chunk);
  }

  /** `job-done` from the worker: COMPLETED, or FAILED when an `error` is present. Late results are ignored. */
  complete(workerId: string, job: Job, result: JobResult): boolean {
    if (job.status !== 'IN_PROGRESS' || job.workerId !== workerId) return false;
    const failed = result.error !== undefined && result.error !== null && result.error !== '' && result.error !== false;
    this.finish(job, failed ? 'FAILED' : 'COMPLETED', result);
    return true;
  }

  /**
   * A result, progress update or chunk from the worker that the platform refused (nested too
   * deeply to store): the job FAILED with `error`, and the worker is told to stop it.
   */
  refuseOutput(workerId: string, job: Job, error: string): void {
    if (job.status !== 'IN_PROGRESS' || job.workerId !== workerId) return;
    this.stopOnWorker(job, 'FAILED', { error });
  }

  /** `/cancel`: a queued job is removed at once, a running one is stopped on its worker; a finished one is left as it is. */
  cancel(job: Job): Job {
    if (job.status === 'IN_QUEUE') {
      this.queue.remove(job.endpointId, job.id);
      this.finish(job, 'CANCELLED', {});
    } else if (job.status === 'IN_PROGRESS') {
      this.stopOnWorker(job, 'CANCELLED', {});
    }
    return job;
  }

  /** `/retry`: FAILED or TIMED_OUT back to IN_QUEUE with the same id and input, output cleared. */
  retry(job: Job): Job {
    if (job.status !== 'FAILED' && job.status !== 'TIMED_OUT') {
      throw new BadRequestError(`job ${job.id} is ${job.status}; only FAILED or TIMED_OUT jobs can be retried`, { jobId: job.id });
    }
    this.states.reset(job);
    this.enqueue(job);
    return job;
  }

  /** `/purge-queue`: every queued job of the endpoint is cancelled; running jobs continue. */
  purge(endpointId: string): number {
    return this.cancelQueued(endpointId, 'removed by /purge-queue');
  }

  /** Cancels every queued job of the endpoint with `error` (purge, endpoint deleted); returns how many. */
  cancelQueued(endpointId: string, error: string): number {
    const ids = this.queue.shift(endpointId, Number.MAX_SAFE_INTEGER);
    for (const id of ids) {
      const job = this.states.find(id);
      if (job) this.finish(job, 'CANCELLED', { error });
    }
    return ids.length;
  }

  /** `/status?ttl=`: a new lifespan, still counted from submission. */
  setTtl(job: Job, ttlMs: number): void {
    this.states.setTtl(job, ttlMs);
  }

  /** Hands out the chunks not yet delivered; each chunk is delivered exactly once. */
  drainStream(job: Job): StreamChunk[] {
    return this.states.drainStream(job);
  }

  /** `executionTimeout` passed: the job is TIMED_OUT and stopped on its worker. */
  timeOut(job: Job): void {
    this.stopOnWorker(job, 'TIMED_OUT', { error: `job exceeded its executionTimeout of ${job.policy.executionTimeout} ms` });
  }

  /** The worker `workerId` is gone: those of `jobIds` it was still running fail with `error`. */
  workerLost(workerId: string, jobIds: Iterable<string>, error: string): void {
    for (const jobId of jobIds) {
      const job = this.states.find(jobId);
      if (job && job.status === 'IN_PROGRESS' && job.workerId === workerId) this.finish(job, 'FAILED', { error });
    }
  }

  /** Deletes a job whatever its state (ttl, retention); a running one is stopped on its worker. */
  delete(job: Job): void {
    if (job.status === 'IN_QUEUE') this.queue.remove(job.endpointId, job.id);
    if (job.status === 'IN_PROGRESS' && job.workerId) {
      this.emit('stop', job.workerId, job.id);
      this.emit('released', job.workerId, job.id);
    }
    this.states.remove(job);
  }

  /** The ids of the jobs with a deadline due at `now` (for the sweeper, which re-checks each). */
  due(now: number): Set<string> {
    return this.states.due(now);
  }

  /** Drops stale deadline entries once there are too many. */
  compactDeadlines(): void {
    this.states.compactDeadlines();
  }

  /** Commits queued writes now (the store batches them per event-loop turn). */
  flush(): void {
    this.states.flush();
  }

  /** Resolves once every change made so far is on disk: await it before acknowledging a change. */
  persisted(): Promise<void> {
    return this.states.persisted();
  }

  /** Ends a running job and tells its worker to stop it. */
  private stopOnWorker(job: Job, status: FinalStatus, result: JobResult): void {
    const workerId = job.workerId;
    this.finish(job, status, result);
    if (workerId) this.emit('stop', workerId, job.id);
  }

  /** Moves a job to a terminal state; its worker (if it ran) is released. */
  private finish(job: Job, status: FinalStatus, result: JobResult): void {
    const workerId = this.states.finish(job, status, result);
    if (workerId) this.emit('released', workerId, job.id);
    this.emit('finished', job);
  }

  private enqueue(job: Job): void {
    this.queue.push(job.endpointId, job.id);
    this.emit('queued', job);
    this.queue.dispatch(job.endpointId);
  }

  private assign(ids: string[], workerId: string): Job[] {
    const now = this.clock.now();
    const out: Job[] = [];
    for (const id of ids) {
      const job = this.states.find(id);
      if (!job || job.status !== 'IN_QUEUE') continue;
      this.states.start(job, workerId, now);
      out.push(job);
    }
    return out;
  }
}
