/** `sluice dev`'s stack in one process: the Temporal dev server (or a cluster), the local platform and the daemon. */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TASK_QUEUE } from '../../../contracts/names';
import { describeFaults, startPlatform, type FaultsInput, type Platform } from '../../../platform';
import { createLogger } from '../../../common/logger';
import { loadConfig } from '../../../worker/config';
import { startDaemon, type Daemon } from '../../../worker/daemon';
import { boundHeapGrowth } from '../../../worker/heap';
import { installTemporalRuntime } from '../../../worker/runtime';
import { writeDevState, type DevState } from '../settings';
import { startTemporalDevServer, type TemporalDevServer } from './temporal-server';

/** Options of {@link startDevStack}. */
export interface DevStackOptions {
  /** Root of all state. Default `.data`. */
  dataDir?: string;
  /** Platform port. Default 8080. */
  port?: number;
  /** Temporal gRPC port (embedded server). Default 7233; the UI listens on port + 1000. */
  temporalPort?: number;
  /** Daemon port (webhooks, health, metrics). Default 8288. */
  daemonPort?: number;
  apiKey?: string;
  /** The platform's fault mode (`--faults`; docs/platform.md). Default: off. */
  faults?: FaultsInput;
  /** Install Temporal's runtime (logs, metrics); false when the caller did. Default true. */
  installRuntime?: boolean;
}

export interface DevStack {
  temporal: { address: string; uiUrl?: string; namespace: string };
  platform: Platform;
  daemon: Daemon;
  state: DevState;
  /** `<data dir>/dev.json` (0600): {@link state}, the API key with it. */
  stateFile: string;
  stop(): Promise<void>;
}

/**
 * The whole stack on one machine: the Temporal dev server (unless TEMPORAL_ADDRESS points at a
 * cluster), the local platform and the worker daemon. State survives restarts in `dataDir`.
 */
export async function startDevStack(o: DevStackOptions = {}): Promise<DevStack> {
  const dataDir = resolve(o.dataDir ?? '.data');
  // Made private when new; an existing folder the user chose keeps its mode (its secret-bearing files are 0600).
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let server: TemporalDevServer | undefined;
  let temporal: DevStack['temporal'];
  if (process.env.TEMPORAL_ADDRESS) {
    temporal = { address: process.env.TEMPORAL_ADDRESS, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' };
  } else {
    const port = o.temporalPort ?? 7233;
    server = await startTemporalDevServer({ dataDir: join(dataDir, 'temporal'), port, uiPort: port + 1000 });
    temporal = { address: server.address, uiUrl: server.uiUrl, namespace: server.namespace };
  }
  try {
    return await startOn(o, dataDir, temporal, server);
  } catch (err) {
    await server?.stop();
    throw err;
  }
}

/**
 * The task queue: the given one, else the default with the embedded server (its own cluster),
 * else — on a shared cluster (TEMPORAL_ADDRESS) — one per data dir, so two stacks never poll
 * each other's jobs (a daemon would send them to the wrong platform).
 */
export function stackTaskQueue(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.SLUICE_TASK_QUEUE) return env.SLUICE_TASK_QUEUE;
  if (!env.TEMPORAL_ADDRESS) return TASK_QUEUE;
  return `${TASK_QUEUE}-dev-${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12)}`;
}

async function startOn(
  o: DevStackOptions,
  dataDir: string,
  temporal: DevStack['temporal'],
  server: TemporalDevServer | undefined,
): Promise<DevStack> {
  const platform = await startPlatform({
    port: o.port ?? 8080,
    dataDir: join(dataDir, 'platform'),
    logger: createLogger('platform'),
    ...(o.apiKey ? { apiKey: o.apiKey } : {}),
    ...(o.faults ? { faults: o.faults } : {}),
    // The dev stack runs the developer's own handlers from their own folders (a venv in their home):
    // its pods run as the developer, even as root. `sluice platform`, the deployed form, runs them as
    // nobody when it is root (docs/platform.md "Threat model"); SLUICE_POD_UID opts the dev stack in.
    ...(process.env.SLUICE_POD_UID ? {} : { pods: { podUser: null } }),
  });
  const resultsDir = join(dataDir, 'results');
  const config = loadConfig(
    {
      ...process.env,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: temporal.namespace,
      SLUICE_TASK_QUEUE: stackTaskQueue(dataDir),
      SLUICE_QUEUE_URL: `${platform.url}/v2`,
      SLUICE_REST_URL: `${platform.url}/v1`,
      SLUICE_GRAPHQL_URL: `${platform.url}/graphql`,
      SLUICE_API_KEY: platform.apiKey,
      SLUICE_RESULTS_DIR: resultsDir,
      SLUICE_DAEMON_PORT: String(o.daemonPort ?? 8288),
      // Batches read and write under the working directory and the data dir (default outputs) unless set.
      SLUICE_BATCH_ROOTS: process.env.SLUICE_BATCH_ROOTS || [process.cwd(), dataDir].join(','),
    },
    { configFile: false },
  );
  // The process is the stack's (not a test's): its runtime and heap policy are the daemon's.
  if (o.installRuntime !== false) boundHeapGrowth(config.SLUICE_HEAP_GROWING_PERCENT);
  const temporalMetricsUrl =
    o.installRuntime === false ? undefined : installTemporalRuntime(config.SLUICE_TEMPORAL_METRICS_PORT);
  const daemon = await startDaemon({
    config,
    logger: createLogger('daemon'),
    ...(temporalMetricsUrl ? { temporalMetricsUrl } : {}),
  }).catch(async (err: unknown) => {
    await platform.close();
    throw err;
  });
  const state: DevState = {
    temporalAddress: temporal.address,
    namespace: temporal.namespace,
    platformUrl: platform.url,
    apiKey: platform.apiKey,
    daemonUrl: daemon.url,
    resultsDir,
    taskQueue: config.SLUICE_TASK_QUEUE,
    ...(temporal.uiUrl ? { uiUrl: temporal.uiUrl } : {}),
  };
  const stateFile = join(dataDir, 'dev.json');
  writeDevState(state, stateFile);
  let stopping: Promise<void> | undefined;
  return {
    temporal,
    platform,
    daemon,
    state,
    stateFile,
    stop: () =>
      (stopping ??= (async () => {
        await daemon.close();
        await platform.close();
        await server?.stop();
      })()),
  };
}

/** The banner of `sluice dev`: every URL and key a person needs. */
export function devBanner(s: DevStack, consoleUrl?: string): string {
  return [
    'sluice dev: the stack is running',
    `  Temporal        ${s.temporal.address} (namespace ${s.temporal.namespace})`,
    ...(s.temporal.uiUrl ? [`  Temporal UI     ${s.temporal.uiUrl}`] : []),
    `  platform        ${s.platform.url}  (queue ${s.platform.url}/v2, REST ${s.platform.url}/v1, GraphQL ${s.platform.url}/graphql)`,
    `  API key         ${s.platform.apiKeyCreated ? `${s.platform.apiKey}  (shown once; kept in ${s.stateFile}, mode 0600)` : `in ${s.stateFile}`}`,
    `  daemon          ${s.daemon.url}  (/healthz /readyz /metrics, webhooks /hooks/...)`,
    ...(consoleUrl ? [`  console         ${consoleUrl}`] : []),
    `  endpoints       ${Object.entries(s.platform.examples)
      .map(([n, e]) => `${n}=${e.id}`)
      .join('  ')}`,
    ...(s.platform.faults ? [`  faults          ${describeFaults(s.platform.faults)}`] : []),
    `  try             npx sluice run --endpoint echo --input '{"hello":"world"}'`,
  ].join('\n');
}
