/** The jobs the platform holds, looked up by id, by endpoint and by idempotency key, and counted for `/health`. */
import { isTerminal } from '../../contracts';
import { NotFoundError } from '../core/errors';
import { type Job } from './job';

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

/**
 * The jobs of the platform, by id and by endpoint, and those submitted with an idempotency key.
 * Lookups never change a job; {@link JobStates} indexes a job when it appears and drops it when
 * it is removed.
 */
export class JobIndex {
  protected readonly jobs = new Map<string, Job>();
  private readonly byEndpoint = new Map<string, Set<Job>>();
  /** Jobs submitted with an `Idempotency-Key`, by user, endpoint and key: held as long as the job is. */
  private readonly byKey = new Map<string, Job>();

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

  /** Indexes a job (a new one, or one loaded at start-up). */
  protected index(job: Job): void {
    this.jobs.set(job.id, job);
    let mine = this.byEndpoint.get(job.endpointId);
    if (!mine) this.byEndpoint.set(job.endpointId, (mine = new Set()));
    mine.add(job);
    if (job.idempotencyKey !== undefined) this.byKey.set(keyOf(job.userId, job.endpointId, job.idempotencyKey), job);
  }

  /** Drops a job from every index. */
  protected unindex(job: Job): void {
    this.jobs.delete(job.id);
    const mine = this.byEndpoint.get(job.endpointId);
    mine?.delete(job);
    if (mine?.size === 0) this.byEndpoint.delete(job.endpointId);
    if (job.idempotencyKey !== undefined) this.byKey.delete(keyOf(job.userId, job.endpointId, job.idempotencyKey));
  }
}
