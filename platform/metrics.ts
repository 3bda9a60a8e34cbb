/**
 * The platform's own Prometheus metrics (`GET /metrics`, beside `/healthz`): jobs by state and
 * workers by state per endpoint (read at scrape time, as `/health` counts them), the endpoints'
 * bounds, and histograms of queue delay and execution time of the jobs that finished.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { type JobEngine } from './jobs/engine';
import { type Job } from './jobs/job';
import { type PodPool } from './pods/pool';
import { type Registry as EndpointRegistry } from './control-plane/registry';
import { type Router } from './transport/http/router';

/** Seconds: from a second (a warm worker) to ten minutes (a cold start behind a long queue). */
const DELAY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** Seconds a job ran, up to the default execution timeout's order (an hour and more). */
const EXECUTION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

/** What the metrics read: the endpoints, their jobs and their pods. */
export interface PlatformMetricsSources {
  registry: EndpointRegistry;
  engine: JobEngine;
  pool: PodPool;
}

/** The platform's registry; `route` serves it as `GET /metrics` (no key: like `/healthz`, it names no secret). */
export class PlatformMetrics {
  readonly registry = new Registry();
  private readonly delay: Histogram<'endpoint'>;
  private readonly execution: Histogram<'endpoint'>;
  private readonly finished: Counter<'endpoint' | 'status'>;

  constructor(private readonly s: PlatformMetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'sluice_platform_' });
    const jobs = new Gauge({
      name: 'sluice_platform_jobs',
      help: 'Jobs the platform holds per endpoint, by status (in_queue, in_progress; completed and failed within retention)',
      labelNames: ['endpoint', 'status'],
      registers,
      collect: () => {
        jobs.reset();
        for (const e of this.s.registry.allEndpoints()) {
          const c = this.s.engine.jobs.counts(e.id);
          jobs.set({ endpoint: e.id, status: 'in_queue' }, c.inQueue);
          jobs.set({ endpoint: e.id, status: 'in_progress' }, c.inProgress);
          jobs.set({ endpoint: e.id, status: 'completed' }, c.completed);
          jobs.set({ endpoint: e.id, status: 'failed' }, c.failed);
        }
      },
    });
    const workers = new Gauge({
      name: 'sluice_platform_workers',
      help: 'Live workers per endpoint, by status (idle, running, initializing, unhealthy), as /health counts them',
      labelNames: ['endpoint', 'status'],
      registers,
      collect: () => {
        workers.reset();
        for (const e of this.s.registry.allEndpoints()) {
          const c = this.s.pool.workerCounts(e.id);
          for (const status of ['idle', 'running', 'initializing', 'unhealthy'] as const)
            workers.set({ endpoint: e.id, status }, c[status]);
        }
      },
    });
    const bounds = new Gauge({
      name: 'sluice_platform_endpoint_workers',
      help: "An endpoint's configured bounds (bound: min = workersMin, max = workersMax)",
      labelNames: ['endpoint', 'name', 'bound'],
      registers,
      collect: () => {
        bounds.reset();
        for (const e of this.s.registry.allEndpoints()) {
          bounds.set({ endpoint: e.id, name: e.name, bound: 'min' }, e.workersMin);
          bounds.set({ endpoint: e.id, name: e.name, bound: 'max' }, e.workersMax);
        }
      },
    });
    this.finished = new Counter({
      name: 'sluice_platform_jobs_finished_total',
      help: 'Jobs that reached a terminal status, per endpoint',
      labelNames: ['endpoint', 'status'],
      registers,
    });
    this.delay = new Histogram({
      name: 'sluice_platform_queue_delay_seconds',
      help: 'Time a job waited in its queue before a worker took it (delayTime), of the jobs that finished',
      labelNames: ['endpoint'],
      buckets: DELAY_BUCKETS,
      registers,
    });
    this.execution = new Histogram({
      name: 'sluice_platform_execution_seconds',
      help: 'Time a worker ran a job (executionTime), of the jobs that finished',
      labelNames: ['endpoint'],
      buckets: EXECUTION_BUCKETS,
      registers,
    });
    s.engine.on('finished', (job: Job) => this.onFinished(job));
  }

  private onFinished(job: Job): void {
    const endpoint = job.endpointId;
    this.finished.inc({ endpoint, status: job.status });
    if (job.startedAt === undefined) return;
    this.delay.observe({ endpoint }, Math.max(0, job.startedAt - job.queuedAt) / 1000);
    if (job.completedAt !== undefined)
      this.execution.observe({ endpoint }, Math.max(0, job.completedAt - job.startedAt) / 1000);
  }

  /** The route group serving `GET /metrics` in Prometheus' text format. */
  readonly route = (router: Router): void => {
    router.on('GET', '/metrics', async (ctx) => {
      const text = await this.registry.metrics();
      ctx.res.writeHead(200, { 'content-type': this.registry.contentType, 'content-length': Buffer.byteLength(text) });
      ctx.res.end(text);
    });
  };
}
