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
import { Command, CommanderError, Help } from 'commander';
import { packageInfo } from '../../common/package-root';
import { ConfigError } from '../../config/errors';
import { CLIENT_ENV_HELP, SETTINGS_SOURCE_HELP } from './config';
import { UsageError } from './errors';
import { EXIT_CODES } from './exit-codes';
import {
  BATCH_GROUP,
  COMPOSE_GROUP,
  CONFIG_COMMAND,
  CONSOLE_COMMAND,
  DEMO_COMMAND,
  DEV_COMMAND,
  ENDPOINTS_GROUP,
  JOB_COMMANDS,
  PIPELINE_GROUP,
  PLATFORM_COMMAND,
  SCALER_GROUP,
  TEMPLATES_GROUP,
  WORKER_COMMAND,
  type GroupStub,
} from './groups';
import { EXIT_CODES_HELP, type ExitState } from './options';

export { EXIT_CODES as EXIT } from './exit-codes';

/** The command is named after the package (its `bin`), and shares its version. */
const PACKAGE = packageInfo();

type Register = (program: Command, exit: ExitState) => void;

/** Top-level commands registered together: their stubs (groups.ts) and their full definitions' module, loaded when named. */
interface LazyGroup {
  stubs: readonly GroupStub[];
  load: () => Promise<Register>;
}

/** Every command group, in the order `sluice --help` lists them. */
const REGISTER: LazyGroup[] = [
  { stubs: [DEV_COMMAND], load: async () => (await import('./dev')).registerDevCommand },
  { stubs: Object.values(JOB_COMMANDS), load: async () => (await import('./job/commands')).registerJobCommands },
  { stubs: [BATCH_GROUP], load: async () => (await import('./batch/commands')).registerBatchCommands },
  { stubs: [SCALER_GROUP], load: async () => (await import('./scaler/commands')).registerScalerCommands },
  { stubs: [PIPELINE_GROUP], load: async () => (await import('./pipeline/commands')).registerPipelineCommands },
  { stubs: [CONFIG_COMMAND], load: async () => (await import('./config')).registerConfigCommand },
  { stubs: [ENDPOINTS_GROUP], load: async () => (await import('./endpoints')).registerEndpointCommands },
  { stubs: [TEMPLATES_GROUP], load: async () => (await import('./templates')).registerTemplateCommands },
  { stubs: [PLATFORM_COMMAND], load: async () => (await import('./platform')).registerPlatformCommands },
  { stubs: [WORKER_COMMAND], load: async () => (await import('./worker')).registerWorkerCommand },
  { stubs: [CONSOLE_COMMAND], load: async () => (await import('./console')).registerConsoleCommand },
  { stubs: [COMPOSE_GROUP], load: async () => (await import('./compose')).registerComposeCommands },
  { stubs: [DEMO_COMMAND], load: async () => (await import('./demo')).registerDemoCommand },
];

/** Registers a group's stubs: each name with its summary, listed under the full definition's term. */
function registerStubs(program: Command, stubs: readonly GroupStub[], terms: WeakMap<Command, string>): void {
  for (const stub of stubs)
    for (const [i, name] of stub.names.entries()) {
      const cmd = program.command(name, { hidden: i > 0 }).summary(stub.summary);
      if (stub.term) terms.set(cmd, stub.term);
    }
}

/**
 * The program; `exit` receives the exit code of the action that ran. With `command` (the command
 * line's first word) only the group that names it is registered in full (its module loaded), the
 * others as stubs with their names and summaries: `sluice --version`, `--help` and each command
 * load only their own definitions (issue 23: the CLI answers at once). Without it, every group
 * in full (tests walk the tree).
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
  const terms = new WeakMap<Command, string>();
  const term = Help.prototype.subcommandTerm;
  program.configureHelp({
    subcommandTerm(this: Help, cmd) {
      return terms.get(cmd) ?? term.call(this, cmd);
    },
  });
  for (const entry of REGISTER) {
    const named = command === undefined || entry.stubs.some((s) => s.names.includes(command));
    if (named) (await entry.load())(program, exit);
    else registerStubs(program, entry.stubs, terms);
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
