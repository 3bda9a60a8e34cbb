/**
 * The scaler orchestration's command group — `sluice scaler start|configure|status|watch|override|pause|resume|stop|schedule` —
 * registered on the program by main, one step per subcommand (start and stop in run-commands.ts; configure, override,
 * pause and resume in control-commands.ts; schedule in schedule-commands.ts); `scale`, its former name, is kept as a hidden alias.
 */
import { type Command, Option } from 'commander';
import { configureCommand, overrideCommand, pauseResumeScalerCommands } from './control-commands';
import { SCALER_EXIT_HELP } from './output';
import { ENDPOINT_ARGUMENT, parseDuration } from './parse';
import { startCommand, stopCommand } from './run-commands';
import { registerScheduleCommands } from './schedule-commands';
import { SCALER_GROUP } from '../groups';
import { dataDirOption, lazyAction, parsePositiveInt, withExit, type ExitState } from '../options';

/** The actions, loaded when a command runs. */
const actions = () => import('./actions');

const decisionsOption = () =>
  new Option('--decisions <n>', 'decisions shown, newest last').argParser(parsePositiveInt).default(8);

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

/** The subcommands, in the order `sluice scaler --help` lists them. */
const SUBCOMMANDS = [
  startCommand,
  configureCommand,
  statusCommand,
  watchCommand,
  overrideCommand,
  pauseResumeScalerCommands,
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
