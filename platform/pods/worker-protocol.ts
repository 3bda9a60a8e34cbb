/** The pool's side of the worker protocol: the job-take hand-over, job-stop orders, ping, refresh and job release. */
import { type Job } from '../jobs/job';
import { isLive, type WorkerPod } from './pod';
import { type PodLifecycle } from './pod-lifecycle';
import { type PoolParts } from './pool-parts';

/** What a worker's calls do to its pod. */
export class WorkerProtocol {
  constructor(
    private readonly parts: PoolParts,
    private readonly lifecycle: PodLifecycle,
  ) {}

  /** A worker's `job-take`: marks it ready and long-polls the engine for up to `max` jobs. */
  async take(pod: WorkerPod, max: number, waitMs: number, isAlive: () => boolean): Promise<Job[]> {
    if (pod.phase === 'initializing') {
      pod.phase = 'ready';
      pod.readyAt = Date.now();
      pod.lastStatusChange = `Worker ready at ${new Date().toISOString()}`;
      this.lifecycle.booted(pod);
      // Its command works: a release that waited on workers crashing at start may go on.
      if (this.parts.crashes.ready(pod.endpointId)) this.parts.changed();
    }
    if (pod.draining || !isLive(pod)) {
      await new Promise((r) => setTimeout(r, Math.min(waitMs, 1000)).unref());
      return [];
    }
    // A pod drained while its take waits must not be handed a job: it is about to be stopped.
    const stillServing = (): boolean => isAlive() && !pod.draining && isLive(pod);
    const jobs = await this.parts.engine.take(pod.endpointId, pod.id, max, waitMs, stillServing);
    for (const j of jobs) {
      pod.jobs.add(j.id);
      pod.stops.forget(j.id);
    }
    if (jobs.length > 0) this.parts.changed();
    return jobs;
  }

  /** The worker hung up while `jobs` were handed to it: they go back to the head of the queue. */
  giveBack(pod: WorkerPod, jobs: Job[]): void {
    for (const j of jobs) pod.jobs.delete(j.id);
    this.parts.engine.giveBack(jobs);
  }

  /** A worker's `job-stop` long-poll: the ids of jobs it must stop, or [] after `waitMs`. */
  stopsFor(pod: WorkerPod, waitMs: number, signal: AbortSignal): Promise<string[]> {
    return pod.stops.next(waitMs, signal);
  }

  /** The worker asked to be replaced after its job (`refresh_worker`). */
  refresh(pod: WorkerPod): void {
    this.lifecycle.drain(pod, 'refresh_worker requested by the handler');
  }

  /** A worker's ping; `running` lists the jobs it runs (undefined: the ping did not say). */
  ping(pod: WorkerPod, unhealthy: boolean, running?: string[]): void {
    pod.lastPingAt = Date.now();
    if (running) pod.stops.running(running);
    if (unhealthy) pod.unhealthy = true;
  }

  /** A job left the worker `workerId` (finished, deleted): once idle, a draining worker stops. */
  released(workerId: string, jobId: string): void {
    const pod = this.parts.pods.get(workerId);
    if (!pod) return;
    pod.jobs.delete(jobId);
    if (pod.jobs.size === 0) {
      pod.idleSince = Date.now();
      if (pod.draining) void this.lifecycle.stop(pod, 'drained');
    }
    this.parts.changed();
  }

  /** The worker `workerId` must stop running `jobId` (cancel, timeout, ttl): told through `job-stop`. */
  requestStop(workerId: string, jobId: string): void {
    this.parts.pods.get(workerId)?.stops.add(jobId);
  }
}
