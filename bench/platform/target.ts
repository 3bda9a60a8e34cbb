import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { startPlatform, type Platform } from '../../platform';
import { expectStatus, keepAlivePool, requestJson, type JsonReply } from './http';
import { inProcessWorkers, processWorkers, type BenchWorkers, type WorkerMode } from './workers';

const API_KEY = 'bench-key';
/** The bench platform's API key, as a request header. */
export const AUTH = { authorization: `Bearer ${API_KEY}` };
const SYNC_WAIT_MS = 30_000;

/** The platform under test, its no-op workers and a client pool. */
export interface Target {
  /** One no-op job through the platform: POST /run, the worker's take + done, then its status (COMPLETED). */
  lifecycle(): Promise<void>;
  /** One POST /runsync of a no-op job; resolves with its latency in ms. */
  runsync(): Promise<number>;
  /** CPU µs of the worker processes so far (process mode on Linux). */
  workerCpuUs(): number | undefined;
  close(): Promise<void>;
}

/** The platform as the platform benches run it: silent, no rate limits, no examples, pods ready at once. */
export function startBenchPlatform(dataDir: string): Promise<Platform> {
  return startPlatform({
    port: 0,
    dataDir,
    apiKey: API_KEY,
    logger: pino({ level: 'silent' }),
    // The spec's base limit of /run is 1000 per 10 s window (200 concurrent), raised only by the
    // dynamic per-worker limit: with it on, this bench would be capped near 100 lifecycles/s.
    rateLimits: { enabled: false },
    seedExamples: false,
    pods: { coldStartMs: 0, flashBootColdStartMs: 0, stopGraceMs: 5000 },
  });
}

export async function startTarget(opts: { workers: WorkerMode; concurrency: number; pods: number }): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-bench-'));
  const platform = await startBenchPlatform(dataDir);
  const client = keepAlivePool(platform.url, opts.concurrency);
  let workers: BenchWorkers;
  try {
    workers =
      opts.workers === 'inproc'
        ? inProcessWorkers(platform, opts.concurrency)
        : await processWorkers(platform, opts.pods, opts.concurrency);
  } catch (err) {
    await platform.close();
    throw err;
  }
  const ep = workers.endpointId;
  const completed = (what: string, reply: JsonReply): void => {
    expectStatus(what, reply);
    const status = (reply.body as { status?: string }).status;
    if (status !== 'COMPLETED')
      throw new Error(`${what}: job is ${status}, expected COMPLETED: ${JSON.stringify(reply.body)}`);
  };

  return {
    async lifecycle() {
      const run = await requestJson(client, 'POST', `/v2/${ep}/run`, { body: { input: {} }, headers: AUTH });
      expectStatus('run', run);
      const id = (run.body as { id: string }).id;
      if (workers.done) {
        await workers.done(id);
        completed('status', await requestJson(client, 'GET', `/v2/${ep}/status/${id}`, { headers: AUTH }));
      } else {
        // The worker is another process: status-sync is the status request that waits for the end.
        completed(
          'status-sync',
          await requestJson(client, 'GET', `/v2/${ep}/status-sync/${id}?wait=${SYNC_WAIT_MS}`, { headers: AUTH }),
        );
      }
    },
    async runsync() {
      const t = performance.now();
      const reply = await requestJson(client, 'POST', `/v2/${ep}/runsync?wait=${SYNC_WAIT_MS}`, {
        body: { input: {} },
        headers: AUTH,
      });
      const ms = performance.now() - t;
      completed('runsync', reply);
      return ms;
    },
    workerCpuUs: () => workers.cpuUs?.(),
    async close() {
      try {
        await client.close();
        await workers.close();
      } finally {
        await platform.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
