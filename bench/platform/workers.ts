import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Pool } from 'undici';
import { apiKey, shortId } from '../../platform/core/ids';
import { type WorkerPod } from '../../platform/pods/pod';
import { StopOrders } from '../../platform/pods/stop-orders';
import { type Platform } from '../../platform';
import { expectStatus, keepAlivePool, requestJson } from './http';
import { tsxCommand } from '../../test/helpers/tsx-command';

/** How the no-op worker runs: loops of this process over HTTP, or the project's worker SDK in pods the platform spawns. */
export type WorkerMode = 'inproc' | 'process';

/** The no-op workers of one endpoint. */
export interface BenchWorkers {
  endpointId: string;
  /** inproc: resolves once job-done for `jobId` was accepted (the client then reads /status). */
  done?(jobId: string): Promise<void>;
  /** process: CPU µs the worker processes used so far (Linux /proc), else undefined. */
  cpuUs?(): number | undefined;
  close(): Promise<void>;
}

const DONE_TIMEOUT_MS = 30_000;

/** Registers a template running `command` and an endpoint of exactly `workers` pods of it (no scaling during a run). */
export function saveEndpoint(
  platform: Platform,
  spec: { id: string; command: string[]; env: Record<string, string>; workers: number },
): void {
  const userId = platform.user.id;
  const template = platform.registry.saveTemplate({
    userId,
    name: `bench-noop-${spec.id}`,
    imageName: 'local/bench-noop',
    category: 'CPU',
    containerDiskInGb: 5,
    containerRegistryAuthId: null,
    dockerEntrypoint: [],
    dockerStartCmd: spec.command,
    env: spec.env,
    isPublic: false,
    isRunpod: false,
    isServerless: true,
    ports: [],
    readme: '',
    volumeInGb: 0,
    volumeMountPath: '/workspace',
  });
  // workersMin = workersMax: the scaler neither adds nor retires workers during the run.
  platform.registry.saveEndpoint({
    id: spec.id,
    userId,
    name: `bench-noop-${spec.id}`,
    gpuIds: 'AMPERE_16',
    templateId: template.id,
    idleTimeout: 3600,
    locations: '',
    flashBootType: 'OFF',
    scalerType: 'REQUEST_COUNT',
    scalerValue: 1_000_000,
    workersMin: spec.workers,
    workersMax: spec.workers,
    networkVolumeId: null,
  });
}

/**
 * A synthetic pod record (what the pool keeps of a spawned worker, minus the process) and
 * `loops` take/done loops in this process that speak the worker protocol over real HTTP.
 * The template's command exits at once: if the pool ever spawned it, {@link close} notices.
 */
export function inProcessWorkers(platform: Platform, loops: number): BenchWorkers {
  const endpointId = shortId(14);
  const now = Date.now();
  const pod: WorkerPod = {
    id: shortId(14),
    endpointId,
    userId: platform.user.id,
    templateId: '',
    version: 1,
    token: apiKey(),
    phase: 'ready',
    command: [],
    env: {},
    jobs: new Set(),
    idleSince: now,
    draining: false,
    unhealthy: false,
    stops: new StopOrders(),
    createdAt: now,
    lastStatusChange: `bench pod at ${new Date(now).toISOString()}`,
  };
  // Registered before the endpoint exists, so the scaler's first look already counts it.
  platform.pool.register(pod);
  saveEndpoint(platform, { id: endpointId, command: [process.execPath, '-e', 'process.exit(3)'], env: {}, workers: 1 });
  pod.templateId = platform.registry.endpoint(endpointId)!.templateId;

  const pool: Pool = keepAlivePool(platform.url, loops);
  const stop = new AbortController();
  setMaxListeners(loops + 10, stop.signal); // every pending take listens to it
  const headers = { authorization: pod.token };
  const waiters = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  const waiter = (id: string): { promise: Promise<void>; resolve: () => void } => {
    let w = waiters.get(id);
    if (!w) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      waiters.set(id, (w = { promise, resolve }));
    }
    return w;
  };

  const loop = async (): Promise<void> => {
    while (!stop.signal.aborted) {
      let taken;
      try {
        taken = await requestJson(pool, 'GET', `/v2/${endpointId}/job-take/${pod.id}?job_in_progress=0`, {
          headers,
          signal: stop.signal,
        });
      } catch (err) {
        if (stop.signal.aborted) return;
        throw err;
      }
      if (taken.status === 204) continue;
      expectStatus('job-take', taken);
      const id = (taken.body as { id: string }).id;
      const done = await requestJson(pool, 'POST', `/v2/${endpointId}/job-done/${pod.id}/${id}?isStream=false`, {
        body: { output: { ok: true } },
        headers,
      });
      expectStatus('job-done', done);
      waiter(id).resolve();
    }
  };
  const errors: unknown[] = [];
  const running = Array.from({ length: loops }, () =>
    loop().catch((err: unknown) => {
      errors.push(err);
    }),
  );

  return {
    endpointId,
    async done(jobId) {
      const w = waiter(jobId);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `job ${jobId} was not done within ${DONE_TIMEOUT_MS} ms${errors.length > 0 ? ` (worker error: ${String(errors[0])})` : ''}`,
              ),
            ),
          DONE_TIMEOUT_MS,
        );
      });
      try {
        await Promise.race([w.promise, timeout]);
      } finally {
        clearTimeout(timer);
        waiters.delete(jobId);
      }
    },
    async close() {
      stop.abort();
      await Promise.all(running);
      await pool.destroy();
      const spawned = platform.pool.podsOf(endpointId).filter((p) => p.proc !== undefined).length;
      if (spawned > 0) errors.push(new Error(`the pool spawned ${spawned} process(es) for the in-process endpoint`));
      if (errors.length > 0) throw errors[0];
    },
  };
}

/** The command that runs bench/platform/noop-worker.ts through tsx's loader (as the example endpoints do). */
function noopWorkerCommand(): string[] {
  return tsxCommand(join(__dirname, 'noop-worker.ts'));
}

/**
 * `pods` real worker processes, spawned by the platform's pool from a template, each running
 * the project's worker SDK with a no-op handler and `concurrency` jobs at once. The SDK's
 * info line per job (debug: its start) is turned off (RUNPOD_DEBUG_LEVEL=WARN): the bench measures the platform.
 */
export async function processWorkers(platform: Platform, pods: number, concurrency: number): Promise<BenchWorkers> {
  const endpointId = shortId(14);
  saveEndpoint(platform, {
    id: endpointId,
    command: noopWorkerCommand(),
    env: { BENCH_WORKER_CONCURRENCY: String(concurrency), RUNPOD_DEBUG_LEVEL: 'WARN' },
    workers: pods,
  });
  const deadline = Date.now() + 60_000;
  // A pod turns ready on its first job-take.
  while (platform.pool.podsOf(endpointId).filter((p) => p.phase === 'ready').length < pods) {
    const dead = platform.pool.podsOf(endpointId).find((p) => p.phase === 'exited');
    if (dead)
      throw new Error(`bench worker ${dead.id} exited (${JSON.stringify(dead.exit)}); see its log under the data dir`);
    if (Date.now() > deadline) throw new Error('bench workers did not become ready within 60 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  const pids = platform.pool
    .podsOf(endpointId)
    .map((p) => p.proc?.pid)
    .filter((pid): pid is number => pid !== undefined);
  return { endpointId, cpuUs: () => processCpuUs(pids), close: async () => {} };
}

/** utime + stime of the processes in µs (clock ticks of 10 ms), or undefined off Linux. */
function processCpuUs(pids: number[]): number | undefined {
  try {
    let ticks = 0;
    for (const pid of pids) {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return ticks * 10_000;
  } catch {
    return undefined;
  }
}
