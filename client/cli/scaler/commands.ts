/**
 * The scaler orchestration's command group — `sluice scaler start|configure|status|watch|override|pause|resume|stop|schedule` —
 * registered on the program by main, one step per subcommand; `scale`, its former name, is kept as a hidden alias.
 */
import { type Command, Option } from 'commander';
import { SCALER_CONTROL_EXIT_HELP, SCALER_EXIT_HELP } from './output';
import { parseDuration, parseWorkers } from './parse';
import { registerScheduleCommands } from './schedule-commands';
import { settingOptions } from './setting-options';
import { SCALER_GROUP } from '../groups';
import { dataDirOption, lazyAction, parsePositiveInt, withExit, type ExitState } from '../options';

/** The actions, loaded when a command runs. */
const actions = () => import('./actions');

const ENDPOINT_ARGUMENT = ['<endpoint>', 'endpoint id or name'] as const;
const decisionsOption = () =>
  new Option('--decisions <n>', 'decisions shown, newest last').argParser(parsePositiveInt).default(8);

/** `sluice scaler start ENDPOINT`. */
function startCommand(scaler: Command, exit: ExitState): void {
  settingOptions(
    scaler
      .command('start')
      .summary("start the endpoint's scaler (one per endpoint)")
      .description(
        'Starts the scaler workflow of the endpoint (by id or name; an unknown one is refused before anything starts) and returns; it runs until `sluice scaler stop`. A second scaler of the same endpoint is refused.',
      )
      .argument(...ENDPOINT_ARGUMENT),
    false,
  )
    .addOption(new Option('--json', 'JSON {workflowId, endpointId, config}'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `
Examples:
  sluice scaler start my-model
  sluice scaler start my-model --floor 1 --ceiling 20 --interval 2s --target-per-worker 4 --max-spend-per-hour 12.5

Exit code: 0 started; 1 the command failed; 2 usage (bad option, unknown endpoint, a scaler already runs).`,
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.start),
      ),
    );
}

/** `sluice scaler configure ENDPOINT`. */
function configureCommand(scaler: Command, exit: ExitState): void {
  settingOptions(
    scaler
      .command('configure')
      .summary("change a running scaler's settings live (the others stay as they are)")
      .description(
        'Sends the scaler its configure update: the settings given replace the ones in force (`none` clears an optional one: --target-queue-delay, --max-spend-per-hour, --price-per-hour, --warm-hold) and it returns once a tick ran with them. A floor above the ceiling in force (or given) is refused and nothing changes.',
      )
      .argument(...ENDPOINT_ARGUMENT),
    true,
  )
    .addOption(new Option('--json', 'the ScalerState once a tick ran with the new settings'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `
Examples:
  sluice scaler configure my-model --ceiling 12 --max-spend-per-hour none
  sluice scaler configure my-model --floor 1 --interval 2s --target-per-worker 4 --warm-hold 0

${SCALER_CONTROL_EXIT_HELP}`,
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.configure),
      ),
    );
}

/** `sluice scaler status ENDPOINT`. */
function statusCommand(scaler: Command, exit: ExitState): void {
  scaler
    .command('status')
    .summary(
      "bounds, load, config, override, window, the last decisions with their reasons, and the endpoint's schedules",
    )
    .argument(...ENDPOINT_ARGUMENT)
    .addOption(decisionsOption())
    .addOption(
      new Option(
        '--json',
        "the view: workflowId, workflowStatus, state (the ScalerState, every decision kept), schedules (the endpoint's scaler schedules)",
      ),
    )
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nExamples:\n  sluice scaler status my-model\n  sluice scaler status my-model --decisions 20\n  sluice scaler status my-model --json\n\n${SCALER_EXIT_HELP}`,
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.status),
      ),
    );
}

/** `sluice scaler watch ENDPOINT`. */
function watchCommand(scaler: Command, exit: ExitState): void {
  scaler
    .command('watch')
    .summary('show a scaler live (Ctrl-C stops watching, not the scaler)')
    .argument(...ENDPOINT_ARGUMENT)
    .addOption(
      new Option('--interval <duration>', 'time between lines when not on a terminal (and JSON lines with --json)')
        .argParser(parseDuration)
        .default(5000, '5s'),
    )
    .addOption(decisionsOption())
    .addOption(new Option('--json', 'JSON lines of the view'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nOn a terminal the status table is redrawn every second; elsewhere one line per --interval.

Example:
  sluice scaler watch my-model

${SCALER_EXIT_HELP} 130: interrupted (the scaler keeps running).`,
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.watch),
      ),
    );
}

/** `sluice scaler override ENDPOINT`. */
function overrideCommand(scaler: Command, exit: ExitState): void {
  scaler
    .command('override')
    .summary('pin workersMin/workersMax for a while (expires by itself), or --clear the pin')
    .argument(...ENDPOINT_ARGUMENT)
    .addOption(new Option('--min <n>', 'workersMin while pinned').argParser(parseWorkers))
    .addOption(new Option('--max <n>', 'workersMax while pinned').argParser(parseWorkers))
    .addOption(new Option('--for <duration>', 'how long the pin holds, e.g. 10m (1s to 30d)').argParser(parseDuration))
    .option('--clear', 'end the override now: the policy decides again')
    .addOption(new Option('--json', 'the ScalerState once the pin is written'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nReturns once the pinned bounds are written.

Examples:
  sluice scaler override my-model --min 4 --max 8 --for 10m
  sluice scaler override my-model --clear

${SCALER_CONTROL_EXIT_HELP}`,
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.override),
      ),
    );
}

/** `sluice scaler pause ENDPOINT` and `resume ENDPOINT`. */
function pauseResumeCommands(scaler: Command, exit: ExitState): void {
  // CLI verbs (the scaler's updates are pauseScaler and resumeScaler).
  for (const [name, pausing] of Object.entries({ pause: true, resume: false })) {
    scaler
      .command(name)
      .summary(
        pausing
          ? 'keep the bounds as they are (samples go on); returns once no write is under way'
          : 'let the scaler change the bounds again',
      )
      .argument(...ENDPOINT_ARGUMENT)
      .addOption(new Option('--json', 'the ScalerState after the change'))
      .addOption(dataDirOption())
      .addHelpText('after', `\nExample:\n  sluice scaler ${name} my-model\n\n${SCALER_CONTROL_EXIT_HELP}`)
      .action(
        withExit(
          exit,
          lazyAction(actions, (m) => m.control(pausing)),
        ),
      );
  }
}

/** `sluice scaler stop ENDPOINT`. */
function stopCommand(scaler: Command, exit: ExitState): void {
  scaler
    .command('stop')
    .summary('stop the scaler: it restores the bounds it found at start')
    .argument(...ENDPOINT_ARGUMENT)
    .addOption(new Option('--json', 'the view after the stop'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nWaits until the bounds are restored. Afterwards \`sluice scaler status\` reports it CANCELLED (exit 3).

Example:
  sluice scaler stop my-model

${SCALER_CONTROL_EXIT_HELP}`,
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.stop),
      ),
    );
}

/** The subcommands, in the order `sluice scaler --help` lists them. */
const SUBCOMMANDS = [
  startCommand,
  configureCommand,
  statusCommand,
  watchCommand,
  overrideCommand,
  pauseResumeCommands,
  stopCommand,
  registerScheduleCommands,
];

/** Registers `sluice scaler` and its subcommands, and the same group as `scale` (hidden: scripts written for the former name go on working). */
export function registerScalerCommands(program: Command, exit: ExitState): void {
  for (const [i, name] of SCALER_GROUP.names.entries()) {
    const scaler = program
      .command(name, { hidden: i > 0 })
      .summary(SCALER_GROUP.summary)
      .description(
        'A scaler is a long-running workflow per endpoint: it samples /health every interval, decides the bounds with its policy (target per worker, step limits, stabilization window, cooldown, spend cap, fallback) and writes workersMin/workersMax through saveEndpoint only when they change. Stopping it restores the bounds it found. See docs/scaler.md.',
      )
      .addHelpText(
        'after',
        `
Examples:
  sluice scaler start my-model --floor 0 --ceiling 8 --max-spend-per-hour 5
  sluice scaler configure my-model --ceiling 12
  sluice scaler status my-model
  sluice scaler override my-model --min 4 --max 8 --for 10m
  sluice scaler schedule add my-model --at 08:00 --tz Europe/Berlin --days mon-fri --min 2 --max 10
  sluice scaler stop my-model

${SCALER_EXIT_HELP}
130: interrupted while watching (the scaler keeps running).`,
      );
    for (const register of SUBCOMMANDS) register(scaler, exit);
  }
}
