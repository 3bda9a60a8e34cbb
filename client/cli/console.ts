/** `sluice console`: the web console alone against any Temporal and results store; and the console the daemon and `sluice dev` serve. */
import { type Command } from 'commander';
import { CONSOLE_COMMAND } from './groups';
import { type ConsoleSettings } from '../../config/console';
import { type ConsoleServer } from '../../console';
import { CLIENT_ENV_HELP } from './config';
import { type CliContext } from './context';
import { dataDirOption, jsonOption, parsePort, withExit, type ExitState } from './options';
import { untilSignal } from './platform';

/** The console's variables, for the help of every command that serves it. */
export const CONSOLE_ENV_HELP = `  SLUICE_CONSOLE_HOST, SLUICE_CONSOLE_PORT  where the console listens (127.0.0.1, 8289)
  SLUICE_CONSOLE_TOKEN, SLUICE_CONSOLE_TOKEN_FILE  its sign-in token (required off 127.0.0.1; file mode 0600)
  SLUICE_TEMPORAL_UI_URL          the Temporal Web UI its job links open (sluice dev: its own)`;

/** Starts the console over a connected CLI context (its clients are the console's sources). */
export async function serveConsole(cli: CliContext, s: ConsoleSettings): Promise<ConsoleServer> {
  const { startConsole } = await import('../../console');
  const { readDevState } = await import('./settings');
  const dev = cli.settings.source === 'dev stack' ? readDevState(cli.settings.devStateFile) : undefined;
  const temporalUiUrl = s.temporalUiUrl ?? dev?.uiUrl;
  return startConsole({
    sources: {
      batch: cli.batch,
      pipeline: cli.pipeline,
      scaler: cli.scaler,
      job: cli.job,
      ...(cli.graphql ? { graphql: cli.graphql } : {}),
      ...(cli.queue ? { queue: cli.queue } : {}),
      ...(temporalUiUrl ? { temporalUiUrl } : {}),
      namespace: cli.settings.config.TEMPORAL_NAMESPACE,
    },
    host: s.host,
    port: s.port,
    ...(s.token ? { token: s.token } : {}),
  });
}

/** The console's settings: the variables, with `--host` and `--port` over them; refused off 127.0.0.1 without a token. */
export async function consoleSettings(o: { host?: string; port?: number }): Promise<ConsoleSettings> {
  const { assertConsoleReachable, loadConsoleSettings } = await import('../../config/console');
  const s = loadConsoleSettings();
  const out = { ...s, ...(o.host ? { host: o.host } : {}), ...(o.port !== undefined ? { port: o.port } : {}) };
  assertConsoleReachable(out);
  return out;
}

async function consoleCommand(o: { dataDir: string; host?: string; port?: number; json?: boolean }): Promise<number> {
  const settings = await consoleSettings(o);
  const { ALL_CLIENTS, connectCli } = await import('./context');
  const cli = await connectCli(o.dataDir, ALL_CLIENTS);
  try {
    const server = await serveConsole(cli, settings);
    console.log(
      o.json
        ? JSON.stringify({ url: server.url, token: Boolean(settings.token) })
        : `sluice console  ${server.url}${settings.token ? '  (sign in with SLUICE_CONSOLE_TOKEN)' : ''}`,
    );
    await untilSignal();
    await server.close();
    return 0;
  } finally {
    await cli.close();
  }
}

/** Registers `sluice console`. */
export function registerConsoleCommand(program: Command, exit: ExitState): void {
  program
    .command('console')
    .summary(CONSOLE_COMMAND.summary)
    .description(
      'Serves the web console against the Temporal and results store of the settings in force (as every command reads them). Listens on 127.0.0.1 unless told otherwise; off this machine it needs SLUICE_CONSOLE_TOKEN. The daemon serves it too (SLUICE_CONSOLE_PORT), and `sluice dev` prints its address. Ctrl-C stops it.',
    )
    .option('--host <host>', 'where it listens (SLUICE_CONSOLE_HOST, default 127.0.0.1)')
    .option('--port <n>', 'its port (SLUICE_CONSOLE_PORT, default 8289; 0: any free port)', parsePort)
    .addOption(dataDirOption())
    .addOption(jsonOption())
    .addHelpText(
      'after',
      `
Environment:
${CONSOLE_ENV_HELP}
${CLIENT_ENV_HELP}
  See docs/console.md.

Examples:
  sluice console                       # http://127.0.0.1:8289
  sluice console --port 0 --json       # {"url":"http://127.0.0.1:41234","token":false}
  SLUICE_CONSOLE_TOKEN_FILE=~/.sluice-console-token sluice console --host 0.0.0.0`,
    )
    .action(withExit(exit, consoleCommand));
}
