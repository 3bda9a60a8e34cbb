/** `sluice worker`: the orchestrator daemon alone, configured by environment variables (TEMPORAL_*, SLUICE_*). */
import { join } from 'node:path';
import { flushCodeCache } from '../../common/code-cache';
import { type Command } from 'commander';
import { WORKER_COMMAND } from './groups';
import { ConfigError } from '../../config/errors';
import { type ConsoleSettings } from '../../config/console';
import { CONSOLE_ENV_HELP, consoleSettings, serveConsole } from './console';
import { dataDirOption, parsePort, withExit, type ExitState } from './options';
import { untilSignal } from './platform';
import { assertPortsFree, temporalMetricsClaim } from './ports';
import { CLIENT_ENV_HELP } from './config';

/** SLUICE_TEMPORAL_METRICS_PORT as the daemon reads it (bad values are a ConfigError naming it). */
export function parseTemporalMetricsPort(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SLUICE_TEMPORAL_METRICS_PORT;
  if (raw === undefined || raw === '') return 9464;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new ConfigError([
      { variable: 'SLUICE_TEMPORAL_METRICS_PORT', message: 'must be a port number from 0 to 65535' },
    ]);
  return n;
}

/**
 * Threads of libuv's pool in the daemon unless UV_THREADPOOL_SIZE says otherwise (Node's default is 4). Every
 * filesystem call of the results store runs there, and its fsyncs hold a thread for milliseconds each: with 4,
 * a pipeline round writing its inputs' contexts (two fsyncs each) queued a stage's inbox reads and webhook appends
 * behind them, and its window emptied (issue 22, bench/README.md "Pipeline"). Read once, when the pool starts: set
 * before the daemon's first filesystem call.
 */
const DAEMON_THREADPOOL = 16;

async function worker(o: { dataDir: string; consolePort?: number }): Promise<number> {
  process.env.UV_THREADPOOL_SIZE ||= String(DAEMON_THREADPOOL);
  // The daemon's code loads when it runs (help and the other commands never load it).
  const [{ loadConfig }, { startDaemon }, { installTemporalRuntime }, { boundHeapGrowth }] = await Promise.all([
    import('../../worker/config'),
    import('../../worker/daemon'),
    import('../../worker/runtime'),
    import('../../worker/heap'),
  ]);
  const config = loadConfig({
    ...process.env,
    SLUICE_RESULTS_DIR: process.env.SLUICE_RESULTS_DIR || join(o.dataDir, 'results'),
  });
  await assertPortsFree([
    {
      port: config.SLUICE_DAEMON_PORT,
      host: config.SLUICE_DAEMON_HOST,
      what: 'the daemon',
      change: 'set SLUICE_DAEMON_PORT to another port',
    },
    temporalMetricsClaim(config.SLUICE_TEMPORAL_METRICS_PORT),
  ]);
  // The console only when asked for (--console-port or SLUICE_CONSOLE_PORT): several daemons share a machine.
  const wantConsole = o.consolePort !== undefined || Boolean(process.env.SLUICE_CONSOLE_PORT);
  const consoleConfig = wantConsole
    ? await consoleSettings(o.consolePort !== undefined ? { port: o.consolePort } : {})
    : undefined;
  const temporalMetricsUrl = installTemporalRuntime(config.SLUICE_TEMPORAL_METRICS_PORT);
  const daemon = await startDaemon({ config, ...(temporalMetricsUrl ? { temporalMetricsUrl } : {}) });
  const web = consoleConfig ? await startDaemonConsole(o.dataDir, consoleConfig) : undefined;
  console.log(
    `sluice worker running: webhooks ${config.SLUICE_PUBLIC_URL ?? daemon.url}/hooks/..., health ${daemon.url}/healthz, metrics ${daemon.url}/metrics${web ? `, console ${web.url}` : ''}`,
  );
  // What the start compiled is kept for the next start (a restart after a crash): bin/sluice.cjs.
  // Then the heap flag: V8 refuses cached data made under other flags than the next start's.
  flushCodeCache();
  boundHeapGrowth(config.SLUICE_HEAP_GROWING_PERCENT);
  await Promise.race([untilSignal(), daemon.done]);
  await web?.close();
  await daemon.close();
  return 0;
}

/** The daemon's console: a client connection of its own (the daemon's settings are the environment's). */
async function startDaemonConsole(
  dataDir: string,
  s: ConsoleSettings,
): Promise<{ url: string; close(): Promise<void> }> {
  const { ALL_CLIENTS, connectCli } = await import('./context');
  const cli = await connectCli(dataDir, ALL_CLIENTS);
  const server = await serveConsole(cli, s).catch(async (err: unknown) => {
    await cli.close();
    throw err;
  });
  return {
    url: server.url,
    close: async () => {
      await server.close();
      await cli.close();
    },
  };
}

/** Registers `sluice worker`. */
export function registerWorkerCommand(program: Command, exit: ExitState): void {
  program
    .command('worker')
    .summary(WORKER_COMMAND.summary)
    .description(
      'Runs the daemon: the Temporal worker of the job workflows, the webhook receiver, /healthz, /readyz and /metrics. Configured by environment variables; every missing or invalid one is reported at once (exit 2).',
    )
    .addOption(dataDirOption())
    .option(
      '--console-port <n>',
      'serve the web console on this port too (SLUICE_CONSOLE_PORT; default: no console)',
      parsePort,
    )
    .addHelpText(
      'after',
      `
Environment (required: SLUICE_QUEUE_URL, SLUICE_API_KEY):
${CLIENT_ENV_HELP}
  SLUICE_DAEMON_HOST, SLUICE_DAEMON_PORT  where it listens (127.0.0.1, 8288)
  SLUICE_PUBLIC_URL               base URL the service calls webhooks on (default http://HOST:PORT)
  SLUICE_WEBHOOK_SECRET           HMAC secret of webhook URLs, >= 16 characters (default: generated, kept in the results dir)
  SLUICE_WEBHOOK_CONFIRM          binding: a body naming its URL's own job is its outcome; status: every body confirmed by /status (binding)
  SLUICE_WEBHOOK_FALLBACK_MS      first fallback poll of a webhook wait (30000)
  SLUICE_TEMPORAL_METRICS_PORT    Temporal's runtime metrics, merged into /metrics (9464, 0: off)
  SLUICE_METRICS_INTERVAL_MS      how often batches and scalers are asked for /metrics (15000, 0: off)
  SLUICE_METRICS_MAX_BATCHES, SLUICE_METRICS_RETENTION_MS  batches with series, ended ones kept (200, 600000)
  OTEL_EXPORTER_OTLP_ENDPOINT     OTLP/HTTP collector of traces (unset: no tracing)
  SLUICE_MAX_CONCURRENT_ACTIVITIES, SLUICE_SHUTDOWN_GRACE_MS  (200, 10000)
${CONSOLE_ENV_HELP}
  See docs/orchestrator.md and docs/operations.md.

Example:
  TEMPORAL_ADDRESS=temporal:7233 SLUICE_QUEUE_URL=https://api.runpod.ai/v2 SLUICE_API_KEY=... sluice worker`,
    )
    .action(withExit(exit, worker));
}
