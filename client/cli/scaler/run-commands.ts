/** The scaler subcommands that start and end its workflow: `sluice scaler start ENDPOINT` and `stop ENDPOINT` (registered by commands.ts). */
import { type Command, Option } from 'commander';
import { SCALER_CONTROL_EXIT_HELP } from './output';
import { ENDPOINT_ARGUMENT } from './parse';
import { settingOptions } from './setting-options';
import { dataDirOption, lazyAction, withExit, type ExitState } from '../options';

/** The actions, loaded when a command runs. */
const actions = () => import('./actions');

/** `sluice scaler start ENDPOINT`. */
export function startCommand(scaler: Command, exit: ExitState): void {
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

/** `sluice scaler stop ENDPOINT`. */
export function stopCommand(scaler: Command, exit: ExitState): void {
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
