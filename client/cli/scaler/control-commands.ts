/**
 * The scaler subcommands that change a running scaler through its updates: `sluice scaler configure`,
 * `override`, `pause` and `resume` (registered by commands.ts).
 */
import { type Command, Option } from 'commander';
import { SCALER_CONTROL_EXIT_HELP } from './output';
import { ENDPOINT_ARGUMENT, parseDuration, parseWorkers } from './parse';
import { settingOptions } from './setting-options';
import { pauseResumeCommands } from '../pause-resume';
import { dataDirOption, lazyAction, withExit, type ExitState } from '../options';

/** The actions, loaded when a command runs. */
const actions = () => import('./actions');

/** `sluice scaler configure ENDPOINT`. */
export function configureCommand(scaler: Command, exit: ExitState): void {
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

/** `sluice scaler override ENDPOINT`. */
export function overrideCommand(scaler: Command, exit: ExitState): void {
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

/** `sluice scaler pause ENDPOINT` and `resume ENDPOINT` (the scaler's updates are pauseScaler and resumeScaler). */
export function pauseResumeScalerCommands(scaler: Command, exit: ExitState): void {
  pauseResumeCommands(
    scaler,
    exit,
    {
      argument: ENDPOINT_ARGUMENT,
      summary: {
        pause: 'keep the bounds as they are (samples go on); returns once no write is under way',
        resume: 'let the scaler change the bounds again',
      },
      state: 'ScalerState',
      example: 'my-model',
      exitHelp: SCALER_CONTROL_EXIT_HELP,
    },
    actions,
  );
}
