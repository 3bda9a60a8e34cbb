/** The worker's side of the job state machine: queued jobs handed out and given back, what workers report, and the events. */
import { EventEmitter } from 'node:events';
import { type StreamChunk } from '../../contracts';
import { type Clock } from '../core/clock';
import { type Job } from './job';
import { type FinalStatus, type JobResult, type JobStates } from './job-states';
import { JobQueue } from './queue';

/** What the engine tells the pool, scaling and dispatch. */
export interface JobEngineEvents {
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
 * The worker-facing half of the job state machine (the engine, ./engine, adds the rest): the
 * queue handing jobs to workers, what workers report on them, and the moves to a terminal state
 * with the events they emit.
 */
export abstract class WorkerJobs extends EventEmitter<JobEngineEvents> {
  protected readonly queue = new JobQueue();

  constructor(
    protected readonly states: JobStates,
    protected readonly clock: Clock,
  ) {
    super();
  }

  /** The endpoint's queued jobs, oldest first. */
  queued(endpointId: string): Job[] {
    return this.queue
      .ids(endpointId)
      .map((id) => this.states.find(id))
      .filter((j): j is Job => !!j);
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

  /** The worker `workerId` is gone: those of `jobIds` it was still running fail with `error`. */
  workerLost(workerId: string, jobIds: Iterable<string>, error: string): void {
    for (const jobId of jobIds) {
      const job = this.states.find(jobId);
      if (job && job.status === 'IN_PROGRESS' && job.workerId === workerId) this.finish(job, 'FAILED', { error });
    }
  }

  /** Ends a running job and tells its worker to stop it. */
  protected stopOnWorker(job: Job, status: FinalStatus, result: JobResult): void {
    const workerId = job.workerId;
    this.finish(job, status, result);
    if (workerId) this.emit('stop', workerId, job.id);
  }

  /** Moves a job to a terminal state; its worker (if it ran) is released. */
  protected finish(job: Job, status: FinalStatus, result: JobResult): void {
    const workerId = this.states.finish(job, status, result);
    if (workerId) this.emit('released', workerId, job.id);
    this.emit('finished', job);
  }

  /** Puts a job at the end of its endpoint's queue and offers it to the waiting workers. */
  protected enqueue(job: Job): void {
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
