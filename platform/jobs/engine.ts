/** The job state machine of the spec: submissions, the users' operations on jobs, the sweeper's and recovery (the workers' side: ./worker-jobs). */
import { type JobSubmission, type StreamChunk, resolvePolicy, LIMITS } from '../../contracts';
import { type Clock } from '../core/clock';
import { BadRequestError } from '../core/errors';
import { jobId as newJobId } from '../core/ids';
import { type Job } from './job';
import { JobStates, type JobReader } from './job-states';
import { type JobStore } from './store';
import { WorkerJobs } from './worker-jobs';

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

/**
 * The job state machine of the spec. Every transition goes through here (those of workers and
 * their jobs through {@link WorkerJobs}); {@link JobStates} writes it through to SQLite and wakes
 * whoever waits on the job.
 */
export class JobEngine extends WorkerJobs {
  private readonly endpointTimeout: (endpointId: string) => number | undefined;
  /** Reading jobs: lookups, `/health` counts and waiting for a change. */
  readonly jobs: JobReader;
  /** Jobs created by `/run` and `/runsync` since start, per endpoint (not replays of an idempotency key). */
  private readonly createdPerEndpoint = new Map<string, number>();

  constructor(store: JobStore, options: JobEngineOptions) {
    super(
      new JobStates(store, options.clock, {
        asyncMs: options.retentionAsyncMs ?? LIMITS.retentionAsyncMs,
        syncMs: options.retentionSyncMs ?? LIMITS.retentionSyncMs,
      }),
      options.clock,
    );
    this.endpointTimeout = options.endpointExecutionTimeoutMs ?? (() => undefined);
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
        this.finish(job, 'FAILED', {
          error: 'the platform restarted while this job was running; retry it with /retry',
        });
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
      id: newJobId(),
      endpointId,
      userId,
      status: 'IN_QUEUE',
      sync,
      input: body.input,
      policy,
      submittedAt: now,
      queuedAt: now,
      ttlDeadline: now + policy.ttl,
      retries: 0,
      pendingChunks: [],
      chunkSeq: 0,
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
      throw new BadRequestError(`job ${job.id} is ${job.status}; only FAILED or TIMED_OUT jobs can be retried`, {
        jobId: job.id,
      });
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
    this.stopOnWorker(job, 'TIMED_OUT', {
      error: `job exceeded its executionTimeout of ${job.policy.executionTimeout} ms`,
    });
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
}
