/** `sluice dev`: the Temporal dev server, the platform and the daemon in one process tree; Ctrl-C stops all. */
import { join, resolve } from 'node:path';
import { type Command } from 'commander';
import { DEV_COMMAND } from './groups';
import { stopLeftoverServers } from './dev/leftovers';
import { parseTemporalMetricsPort } from './worker';
import { dataDirOption, parsePort, portOption, withExit, type ExitState } from './options';
import { apiKeyOptions, faultsOption, givenApiKey, readFaults, untilSignal, type FaultsOption } from './platform';
import { assertPortsFree, temporalMetricsClaim, type PortClaim } from './ports';

/** The options `dev` and `demo` share. */
export interface StackOptions {
  port: number;
  temporalPort: number;
  daemonPort: number;
  dataDir: string;
  apiKey?: string;
  apiKeyFile?: string;
}

/** Adds the stack's options (ports, data dir) to `dev` or `demo`. */
export function addStackOptions(cmd: Command): Command {
  return cmd
    .addOption(portOption('--port <n>', "the platform's port (queue, REST, GraphQL)", 8080))
    .addOption(
      portOption(
        '--temporal-port <n>',
        "the embedded Temporal server's gRPC port; its Web UI listens on this + 1000",
        7233,
      ),
    )
    .addOption(portOption('--daemon-port <n>', "the daemon's port (webhooks, /healthz, /metrics)", 8288))
    .addOption(dataDirOption());
}

export const STACK_ENV_HELP = `
Environment:
  SLUICE_DATA_DIR               as --data-dir
  SLUICE_TEMPORAL_METRICS_PORT  Temporal's runtime metrics port (default 9464, 0: off)
  TEMPORAL_ADDRESS              use this Temporal cluster instead of the embedded dev server
  SLUICE_LOG_LEVEL, SLUICE_LOG_PRETTY  log level (info) and pretty logs (on a terminal)`;

/**
 * Before anything starts: stops a leftover Temporal dev server of the data dir (its `sluice` died;
 * refuses if that `sluice` still runs), then checks every port the stack will listen on.
 */
export async function checkStackPorts(o: StackOptions): Promise<void> {
  if (!process.env.TEMPORAL_ADDRESS) {
    const { temporalDbFile } = await import('./dev/temporal-server');
    const dir = join(resolve(o.dataDir), 'temporal');
    const stopped = await stopLeftoverServers(temporalDbFile(dir), resolve(o.dataDir));
    if (stopped.length)
      console.error(
        `sluice: stopped a leftover Temporal dev server of ${resolve(o.dataDir)} (pids ${stopped.join(', ')})`,
      );
  }
  const claims: PortClaim[] = [{ port: o.port, what: 'the platform', change: 'choose another with --port' }];
  if (!process.env.TEMPORAL_ADDRESS) {
    claims.push({
      port: o.temporalPort,
      what: 'the Temporal dev server',
      change: 'choose another with --temporal-port',
    });
    claims.push({
      port: o.temporalPort + 1000,
      what: 'the Temporal Web UI (--temporal-port + 1000)',
      change: 'choose another --temporal-port',
    });
  }
  claims.push({ port: o.daemonPort, what: 'the daemon', change: 'choose another with --daemon-port' });
  claims.push(temporalMetricsClaim(parseTemporalMetricsPort()));
  await assertPortsFree(claims);
}

/** The dev console's port: --console-port, else the daemon's port + 1 (any free port when the daemon's is 0). */
export const devConsolePort = (o: { consolePort?: number; daemonPort: number }): number =>
  o.consolePort ?? (o.daemonPort === 0 ? 0 : o.daemonPort + 1);

async function dev(o: StackOptions & { faults?: FaultsOption; consolePort?: number }): Promise<number> {
  const faults = await readFaults(o.faults);
  const consolePort = devConsolePort(o);
  await checkStackPorts(o);
  await assertPortsFree([{ port: consolePort, what: 'the console', change: 'choose another with --console-port' }]);
  const { devBanner, startDevStack } = await import('./dev/stack');
  const apiKey = givenApiKey(o);
  const stack = await startDevStack({
    port: o.port,
    temporalPort: o.temporalPort,
    daemonPort: o.daemonPort,
    dataDir: o.dataDir,
    ...(apiKey ? { apiKey } : {}),
    ...(faults ? { faults } : {}),
  });
  const web = await startDevConsole(o.dataDir, consolePort).catch(async (err: unknown) => {
    await stack.stop();
    throw err;
  });
  console.log(devBanner(stack, web.url));
  await Promise.race([untilSignal(), stack.daemon.done]);
  console.log('sluice dev: stopping');
  await web.close();
  await stack.stop();
  return 0;
}

/** The dev stack's console on 127.0.0.1 (its settings: the dev.json just written, or the environment). */
export async function startDevConsole(dataDir: string, port: number): Promise<{ url: string; close(): Promise<void> }> {
  const [{ ALL_CLIENTS, connectCli }, { serveConsole }] = await Promise.all([import('./context'), import('./console')]);
  const cli = await connectCli(dataDir, ALL_CLIENTS);
  try {
    const server = await serveConsole(cli, { host: '127.0.0.1', port });
    return {
      url: server.url,
      close: async () => {
        await server.close();
        await cli.close();
      },
    };
  } catch (err) {
    await cli.close();
    throw err;
  }
}

/** Registers `sluice dev`. */
export function registerDevCommand(program: Command, exit: ExitState): void {
  addStackOptions(program.command('dev'))
    .summary(DEV_COMMAND.summary)
    .description(
      'Starts the Temporal dev server (state in <data-dir>/temporal), the local platform (<data-dir>/platform) and the daemon (<data-dir>/results), prints every URL and the API key, and writes <data-dir>/dev.json, from which the other commands (with the same --data-dir or SLUICE_DATA_DIR) take their settings. Ctrl-C stops everything.',
    )
    .addOption(apiKeyOptions("the platform's API key")[0]!)
    .addOption(apiKeyOptions("the platform's API key")[1]!)
    .addOption(faultsOption())
    .option(
      '--console-port <n>',
      "the web console's port, on 127.0.0.1 (default: --daemon-port + 1; any free port when that is 0)",
      parsePort,
    )
    .addHelpText(
      'after',
      `${STACK_ENV_HELP}

Examples:
  sluice dev
  sluice dev --data-dir /tmp/sluice --port 9080 --temporal-port 9233 --daemon-port 9288
  sluice dev --faults seed=7,429=0.05,502=0.05,webhook-lost=0.08   # rehearse a misbehaving service
  SLUICE_DATA_DIR=/tmp/sluice sluice run --endpoint echo --input '{}'   # in another shell`,
    )
    .action(withExit(exit, dev));
}
