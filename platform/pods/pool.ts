import { type Logger } from 'pino';
import { join } from 'node:path';
import { type Endpoint } from '../../contracts';
import { type JobEngine } from '../jobs/engine';
import { type Job } from '../jobs/job';
import { shortId, apiKey } from '../core/ids';
import { type Registry } from '../control-plane/registry';
import { launchPod, reapOrphans, stopPodProcess } from './pod-process';
import { CrashGuard } from './crash-guard';
import { StopOrders } from './stop-orders';
import { isIdle, isLive, isRunning, podSpec, type WorkerPod } from './pod';
import { planEndpoint } from './pool-plan';
import { workerEnv } from './worker-env';

/** Options of {@link PodPool}; durations in ms. */
export interface PodPoolOptions {
  /** The platform's base URL, known once it listens. */
  baseUrl: () => string;
  dataDir: string;
  logger: Logger;
  /** Working directory of pod processes. Default process.cwd(). */
  podCwd?: string;
  /** Simulated cold start before a pod's process starts. Default 1000. */
  coldStartMs?: number;
  /** Cold start of endpoints with flashBootType FLASHBOOT. Default 100. */
  flashBootColdStartMs?: number;
  /** Time a stopping pod gets between SIGTERM and SIGKILL. Default 10000. */
  stopGraceMs?: number;
  /** Scaler period. Default 200. */
  reconcileIntervalMs?: number;
  /** RUNPOD_PING_INTERVAL given to pods. Default 10000. */
  pingIntervalMs?: number;
}

/** Starts, tracks and stops the worker processes of every endpoint, within workersMin..workersMax. */
export class PodPool {
  readonly pods = new Map<string, WorkerPod>();
  private timer: NodeJS.Timeout | undefined;
  private scheduled = false;
  private closed = false;
  private readonly crashes = new CrashGuard();
  private readonly o: Required<Omit<PodPoolOptions, 'baseUrl' | 'logger' | 'dataDir'>> & PodPoolOptions;

  constructor(private readonly registry: Registry, private readonly engine: JobEngine, options: PodPoolOptions) {
    this.o = {
      podCwd: process.cwd(), coldStartMs: 1000, flashBootColdStartMs: 100, stopGraceMs: 10_000,
      reconcileIntervalMs: 200, pingIntervalMs: 10_000, ...options,
    };
    engine.on('queued', () => this.schedule());
    engine.on('released', (workerId, jobId) => this.released(workerId, jobId));
    engine.on('stop', (workerId, jobId) => this.requestStop(workerId, jobId));
    registry.on('endpoint', (e) => {
      this.crashes.release(e.id, e.version);
      // A release or a new worker count applies before the next request is served.
      this.reconcileAll();
    });
    registry.on('endpointDeleted', (e) => this.podsOf(e.id).forEach((p) => this.stop(p, 'endpoint deleted')));
  }

  start(): void {
    const orphans = reapOrphans(join(this.o.dataDir, 'pods'));
    if (orphans > 0) this.o.logger.warn({ orphans }, 'killed workers left behind by a previous platform process');
    this.timer = setInterval(() => this.reconcileAll(), this.o.reconcileIntervalMs);
    this.timer.unref();
    this.schedule();
  }

  podsOf(endpointId: string): WorkerPod[] {
    return [...this.pods.values()].filter((p) => p.endpointId === endpointId);
  }

  /** Live workers of the endpoint (for the dynamic rate limit). */
  runningWorkers(endpointId: string): number {
    return this.podsOf(endpointId).filter((p) => isLive(p) && p.phase !== 'starting').length;
  }

  /** The `/health` workers block. */
  workerCounts(endpointId: string): { idle: number; running: number; initializing: number; ready: number; throttled: number; unhealthy: number } {
    const pods = this.podsOf(endpointId).filter(isLive);
    const idle = pods.filter(isIdle).length;
    return {
      idle,
      running: pods.filter(isRunning).length,
      initializing: pods.filter((p) => p.phase === 'starting' || p.phase === 'initializing').length,
      ready: idle,
      throttled: 0,
      unhealthy: pods.filter((p) => p.unhealthy).length,
    };
  }

  /** A worker's `job-take`: marks it ready and long-polls the engine for up to `max` jobs. */
  async take(pod: WorkerPod, max: number, waitMs: number, isAlive: () => boolean): Promise<Job[]> {
    if (pod.phase === 'initializing') {
      pod.phase = 'ready';
      pod.readyAt = Date.now();
      pod.lastStatusChange = `Worker ready at ${new Date().toISOString()}`;
      // Its command works: a release that waited on workers crashing at start may go on.
      if (this.crashes.ready(pod.endpointId)) this.schedule();
    }
    if (pod.draining || !isLive(pod)) {
      await new Promise((r) => setTimeout(r, Math.min(waitMs, 1000)).unref());
      return [];
    }
    // A pod drained while its take waits must not be handed a job: it is about to be stopped.
    const stillServing = (): boolean => isAlive() && !pod.draining && isLive(pod);
    const jobs = await this.engine.take(pod.endpointId, pod.id, max, waitMs, stillServing);
    for (const j of jobs) {
      pod.jobs.add(j.id);
      pod.stops.forget(j.id);
    }
    if (jobs.length > 0) this.schedule();
    return jobs;
  }

  /** A worker's `job-stop` long-poll: the ids of jobs it must stop, or [] after `waitMs`. */
  stopsFor(pod: WorkerPod, waitMs: number, signal: AbortSignal): Promise<string[]> {
    return pod.stops.next(waitMs, signal);
  }

  /** The worker asked to be replaced after its job (`refresh_worker`). */
  refresh(pod: WorkerPod): void {
    this.drain(pod, 'refresh_worker requested by the handler');
  }

  /** A worker's ping; `running` lists the jobs it runs (undefined: the ping did not say). */
  ping(pod: WorkerPod, unhealthy: boolean, running?: string[]): void {
    pod.lastPingAt = Date.now();
    if (running) pod.stops.running(running);
    if (unhealthy) pod.unhealthy = true;
  }

  /** Reconciles every endpoint soon (coalesced). */
  schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    // A few ms of coalescing: a burst of submissions and results costs one reconcile, not one each.
    setTimeout(() => {
      this.scheduled = false;
      this.reconcileAll();
    }, 5).unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.all([...this.pods.values()].map((p) => this.stop(p, 'platform shutting down')));
  }

  private reconcileAll(): void {
    // Not before start(): pods need the platform's URL.
    if (this.closed || !this.timer) return;
    for (const e of this.registry.allEndpoints()) this.reconcile(e);
  }

  private reconcile(e: Endpoint): void {
    const now = Date.now();
    const plan = planEndpoint({
      endpoint: e,
      pods: this.podsOf(e.id).filter(isLive),
      queued: this.engine.queue.ids(e.id).map((id) => this.engine.jobs.get(id)).filter((j): j is Job => !!j),
      now,
      crashing: this.crashes.failingAtStart(e.id),
      backoff: this.crashes.inBackoff(e.id, now),
    });
    for (const d of plan.drain) this.drain(d.pod, d.why);
    for (let i = 0; i < plan.spawn; i++) this.spawn(e);
  }

  private spawn(e: Endpoint): void {
    const template = this.registry.template(e.templateId);
    if (!template) return;
    const command = [...template.dockerEntrypoint, ...template.dockerStartCmd];
    if (command.length === 0) {
      this.o.logger.error({ endpointId: e.id, templateId: template.id }, 'template has no command to run');
      return;
    }
    const id = shortId(14);
    const now = Date.now();
    // The template is read here, once: the pod runs this command for its whole life.
    const spec = podSpec(e, template);
    const pod: WorkerPod = {
      id, endpointId: e.id, userId: e.userId, templateId: template.id, version: e.version, token: apiKey(),
      phase: 'starting', command, env: {}, jobs: new Set(), idleSince: now, draining: false, unhealthy: false,
      stops: new StopOrders(), createdAt: now, lastStatusChange: `Create worker at ${new Date(now).toISOString()}`, spec,
    };
    pod.env = { ...template.env, ...workerEnv(this.o.baseUrl(), e.id, pod, this.o.pingIntervalMs) };
    this.pods.set(id, pod);
    const delay = e.flashBootType === 'FLASHBOOT' ? this.o.flashBootColdStartMs : this.o.coldStartMs;
    setTimeout(() => this.launch(pod), delay).unref();
  }

  private launch(pod: WorkerPod): void {
    if (pod.phase !== 'starting' || this.closed) return;
    const proc = launchPod({ podId: pod.id, command: pod.command, env: pod.env, cwd: this.o.podCwd, dir: join(this.o.dataDir, 'pods', pod.id) });
    pod.proc = proc;
    pod.phase = 'initializing';
    pod.startedAt = Date.now();
    pod.lastStatusChange = `Start worker at ${new Date().toISOString()}`;
    this.o.logger.info({ podId: pod.id, endpointId: pod.endpointId, version: pod.version, pid: proc.pid }, 'worker started');
    proc.on('error', (err) => this.o.logger.error({ podId: pod.id, err: err.message }, 'worker failed to start'));
    proc.on('exit', (code, signal) => this.exited(pod, code, signal));
  }

  private exited(pod: WorkerPod, code: number | null, signal: string | null): void {
    const expected = pod.phase === 'stopping';
    const beforeReady = pod.phase !== 'ready';
    pod.phase = 'exited';
    pod.exit = { code, signal, at: Date.now() };
    pod.lastStatusChange = `Exited (code ${code}, signal ${signal}) at ${new Date().toISOString()}`;
    for (const jobId of pod.jobs) {
      const job = this.engine.jobs.get(jobId);
      if (job && job.status === 'IN_PROGRESS' && job.workerId === pod.id) {
        const error = this.closed
          ? 'the platform shut down while this job was running; retry it with /retry'
          : `worker ${pod.id} exited (code ${code}, signal ${signal}) while running the job`;
        this.engine.finish(job, 'FAILED', { error });
      }
    }
    pod.jobs.clear();
    if (!expected) {
      pod.crashed = true;
      this.crashes.crashed(pod.endpointId, Date.now() - (pod.startedAt ?? 0), beforeReady, Date.now());
      this.o.logger.warn({ podId: pod.id, endpointId: pod.endpointId, code, signal }, 'worker exited unexpectedly');
    }
    // Exited pods stay readable (REST) for a while, then are forgotten.
    setTimeout(() => this.pods.delete(pod.id), 60_000).unref();
    this.schedule();
  }

  private released(workerId: string, jobId: string): void {
    const pod = this.pods.get(workerId);
    if (!pod) return;
    pod.jobs.delete(jobId);
    if (pod.jobs.size === 0) {
      pod.idleSince = Date.now();
      if (pod.draining) void this.stop(pod, 'drained');
    }
    this.schedule();
  }

  private requestStop(workerId: string, jobId: string): void {
    const pod = this.pods.get(workerId);
    if (!pod) return;
    pod.stops.add(jobId);
  }

  private drain(pod: WorkerPod, why: string): void {
    if (pod.draining) return;
    pod.draining = true;
    pod.lastStatusChange = `Draining (${why}) at ${new Date().toISOString()}`;
    this.o.logger.info({ podId: pod.id, endpointId: pod.endpointId, why }, 'worker draining');
    if (pod.jobs.size === 0) void this.stop(pod, why);
  }

  private async stop(pod: WorkerPod, why: string): Promise<void> {
    if (pod.phase === 'exited' || pod.phase === 'stopping') return;
    const hadProcess = pod.proc !== undefined;
    pod.phase = 'stopping';
    pod.lastStatusChange = `Stopping (${why}) at ${new Date().toISOString()}`;
    // Answer its pending long-polls now: the stock SDK only exits once they return.
    pod.stops.release();
    this.engine.cancelTakes(pod.endpointId, pod.id);
    if (hadProcess) await stopPodProcess(pod.proc!, this.o.stopGraceMs);
    else this.exited(pod, 0, null);
  }
}
