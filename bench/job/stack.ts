/** bench/job's stack: the Temporal dev server on a SQLite file, an in-process platform with warm echo workers (optionally in fault mode) and an in-process daemon. */
import { join } from 'node:path';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { JobClient } from '../../client/job';
import { startPlatform, type FaultsInput } from '../../platform';
import { loadConfig } from '../../worker/config';
import { startDaemon } from '../../worker/daemon';
import { freePort } from '../../test/helpers/platform';

const silent = pino({ level: 'silent' });

/** The Temporal dev server on `dir/temporal.sqlite`, as the embedded default runs it (one home: bench/batch/stack.ts). */
export { temporalEnv as temporalDev } from '../batch/stack';

/** Options of {@link jobStack}. */
export interface JobStackOptions {
  /** Where the platform and the results store keep their files. */
  dir: string;
  /** Warm echo workers kept up. */
  workers: number;
  /** The platform's fault mode. @default undefined (none) */
  faults?: FaultsInput;
  /** The daemon's public URL is a closed port: every webhook lost. @default false */
  unreachable?: boolean;
  /** The daemon's task queue. @default the daemon's default */
  taskQueue?: string;
  /** The platform's logger (a fault test counts its `fault` lines). @default silent */
  platformLogger?: pino.Logger;
}

export type JobStack = Awaited<ReturnType<typeof jobStack>>;

/**
 * A platform (rate limits off, no cold start; `faults` if given) with `workers` idle echo workers,
 * and a daemon with its production settings on `env`; `close()` stops both.
 */
export async function jobStack(env: TestWorkflowEnvironment, o: JobStackOptions) {
  const platform = await startPlatform({
    port: 0,
    dataDir: join(o.dir, 'platform'),
    apiKey: 'bench',
    logger: o.platformLogger ?? silent,
    rateLimits: { enabled: false },
    pods: { coldStartMs: 0, flashBootColdStartMs: 0 },
    ...(o.faults ? { faults: o.faults } : {}),
  });
  const echo = platform.registry.saveEndpoint({
    ...platform.examples.echo!,
    workersMin: o.workers,
    workersMax: o.workers,
  });
  const config = loadConfig({
    TEMPORAL_ADDRESS: env.address,
    SLUICE_QUEUE_URL: `${platform.url}/v2`,
    SLUICE_API_KEY: platform.apiKey,
    SLUICE_RESULTS_DIR: join(o.dir, 'results'),
    SLUICE_DAEMON_PORT: '0',
    SLUICE_TEMPORAL_METRICS_PORT: '0',
    ...(o.taskQueue ? { SLUICE_TASK_QUEUE: o.taskQueue } : {}),
    ...(o.unreachable ? { SLUICE_PUBLIC_URL: `http://127.0.0.1:${await freePort()}` } : {}),
  });
  const daemon = await startDaemon({ config, connection: env.nativeConnection, client: env.client, logger: silent });
  const sluice = new JobClient({
    client: env.client,
    resultsDir: config.SLUICE_RESULTS_DIR,
    ...(o.taskQueue ? { taskQueue: o.taskQueue } : {}),
  });
  while (platform.pool.workerCounts(echo.id).idle < o.workers) await new Promise((r) => setTimeout(r, 100));
  return {
    platform,
    echoId: echo.id,
    daemon,
    sluice,
    /** The daemon's HTTP calls to the service so far, by operation. */
    calls: () => callsBy(daemon.metrics.registry),
    async close(): Promise<void> {
      await daemon.close();
      await platform.close();
    },
  };
}

async function callsBy(registry: {
  getSingleMetric(
    n: string,
  ): { get(): Promise<{ values: { labels: Record<string, unknown>; value: number }[] }> } | undefined;
}): Promise<Record<string, number>> {
  const m = await registry.getSingleMetric('sluice_http_calls_total')!.get();
  const out: Record<string, number> = {};
  for (const v of m.values) out[String(v.labels.operation)] = (out[String(v.labels.operation)] ?? 0) + v.value;
  return out;
}
