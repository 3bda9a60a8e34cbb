/**
 * The `sluice` command: commander parses, helps and versions; each orchestration's command group
 * and the stack's commands register themselves here. Files:
 * - job/ (`run`, `status`, `cancel`, `result`: commands, actions, output, watch), batch/ (`sluice batch`:
 *   commands, run-commands, actions, start, parse, output, progress), scaler/ (`sluice scaler`: commands,
 *   setting-options, actions, parse, output, watch, schedule-commands, schedule);
 * - dev.ts and dev/ (the embedded stack: stack, temporal-server, leftovers), demo.ts and demo-batch.ts,
 *   platform.ts (the local platform), worker.ts (the daemon), console.ts (the web console), endpoints.ts, templates.ts, config.ts;
 * - shared: settings.ts (where the settings come from), context.ts (the connected clients), service-clients.ts
 *   (the control plane's GraphQL and REST clients), endpoint-arg.ts (an endpoint by name or id), options.ts
 *   (shared options and parsers), tables.ts (aligned columns), errors.ts, exit-codes.ts, ports.ts, ctrl-c.ts.
 */
import { Command, CommanderError } from 'commander';
import { packageInfo } from '../../common/package-root';
import { ConfigError } from '../../config/errors';
import { registerComposeCommands } from './compose';
import { CLIENT_ENV_HELP, SETTINGS_SOURCE_HELP, registerConfigCommand } from './config';
import { registerConsoleCommand } from './console';
import { registerDemoCommand } from './demo';
import { registerDevCommand } from './dev';
import { registerEndpointCommands } from './endpoints';
import { UsageError } from './errors';
import { EXIT_CODES } from './exit-codes';
import { registerJobCommands } from './job/commands';
import { BATCH_GROUP, SCALER_GROUP, type GroupStub } from './groups';
import { EXIT_CODES_HELP, type ExitState } from './options';
import { registerPipelineCommands } from './pipeline/commands';
import { registerPlatformCommands } from './platform';
import { registerTemplateCommands } from './templates';
import { registerWorkerCommand } from './worker';

export { EXIT_CODES as EXIT } from './exit-codes';

/** The command is named after the package (its `bin`), and shares its version. */
const PACKAGE = packageInfo();

type Register = (program: Command, exit: ExitState) => void;

/** A group registered in full only when the command line names it (its module loads zod): see groups.ts. */
interface LazyGroup extends GroupStub {
  load: () => Promise<Register>;
}
const BATCH: LazyGroup = { ...BATCH_GROUP, load: async () => (await import('./batch/commands')).registerBatchCommands };
const SCALER: LazyGroup = {
  ...SCALER_GROUP,
  load: async () => (await import('./scaler/commands')).registerScalerCommands,
};

/** Every command group, in the order `sluice --help` lists them. */
const REGISTER: (Register | LazyGroup)[] = [
  registerDevCommand,
  registerJobCommands,
  BATCH,
  SCALER,
  registerPipelineCommands,
  registerConfigCommand,
  registerEndpointCommands,
  registerTemplateCommands,
  registerPlatformCommands,
  registerWorkerCommand,
  registerConsoleCommand,
  registerComposeCommands,
  registerDemoCommand,
];

/**
 * The program; `exit` receives the exit code of the action that ran. With `command` (the command
 * line's first word) a lazy group is registered in full only if it is the one named, else as a
 * stub with its name and summary: `sluice --version`, `--help` and the other commands never load
 * zod (issue 23: the CLI answers at once). Without it, every group in full (tests walk the tree).
 */
export async function buildProgram(exit: ExitState, command?: string): Promise<Command> {
  const program = new Command(PACKAGE.name)
    .description('Durable orchestration for serverless GPU job queues, on Temporal.')
    .version(PACKAGE.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'sluice: ')) })
    .addHelpText(
      'after',
      `
Start with \`sluice dev\` (the whole stack), then \`sluice run --endpoint echo --input '{"hello":"world"}'\`.
Every command has --help; run, status, cancel, result, the batch and scaler commands, config, endpoints, templates and platform users add take --json.

${EXIT_CODES_HELP}

${SETTINGS_SOURCE_HELP}
Environment:
  SLUICE_DATA_DIR                 as --data-dir (.data)
${CLIENT_ENV_HELP}
  SLUICE_LOG_LEVEL, SLUICE_LOG_PRETTY  log level (info) and pretty logs (on a terminal)`,
    );
  for (const entry of REGISTER) {
    if (typeof entry === 'function') entry(program, exit);
    else if (command === undefined || entry.names.includes(command)) (await entry.load())(program, exit);
    else for (const [i, name] of entry.names.entries()) program.command(name, { hidden: i > 0 }).summary(entry.summary);
  }
  return program;
}

/** Entry point of the `sluice` command; resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const exit: ExitState = { code: EXIT_CODES.ok };
  // `sluice help batch` names its group second.
  const program = await buildProgram(exit, (argv[0] === 'help' ? argv[1] : argv[0]) ?? '');
  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return EXIT_CODES.usage;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exit.code;
  } catch (err) {
    // Commander has printed its message (or the help) already.
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
    if (err instanceof UsageError) {
      console.error(`sluice: ${err.message}`);
      return EXIT_CODES.usage;
    }
    if (err instanceof ConfigError) {
      console.error(`sluice: invalid settings:\n${err.issues.map((i) => `  ${i.variable}: ${i.message}`).join('\n')}`);
      return EXIT_CODES.usage;
    }
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      console.error(
        `sluice: ${(err as Error).message}: a port is in use; see \`sluice ${argv[0]} --help\` for the options and variables that choose ports`,
      );
      return EXIT_CODES.usage;
    }
    throw err;
  }
}
