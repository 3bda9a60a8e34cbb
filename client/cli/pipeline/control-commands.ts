/** The pipeline subcommands that change a running pipeline: `sluice pipeline pause|resume|cancel ID` (registered by commands.ts). */
import { type Command, Option } from 'commander';
import { BATCH_UPDATES } from '../../../contracts/names/batch';
import { ID_ARGUMENT } from './output';
import { dataDirOption, lazyAction, withExit, type ExitState } from '../options';

/** The actions, loaded when a command runs. */
const actions = () => import('./actions');

/** `sluice pipeline pause ID` and `resume ID`. */
export function pauseResumeCommands(pipeline: Command, exit: ExitState): void {
  for (const pausing of [true, false]) {
    // The batch commands' names (the pipeline forwards them to every stage's batch).
    const name = pausing ? BATCH_UPDATES.pause : BATCH_UPDATES.resume;
    pipeline
      .command(name)
      .summary(pausing ? 'stop reading inputs and pause every stage (jobs in flight finish)' : 'go on after a pause')
      .argument(...ID_ARGUMENT)
      .addOption(new Option('--json', 'the PipelineState after the change'))
      .addOption(dataDirOption())
      .addHelpText(
        'after',
        `\nExample:\n  sluice pipeline ${name} pipeline/nightly\n\nExit code: 0 done, 1 the pipeline had already ended, 2 usage (no such pipeline).`,
      )
      .action(
        withExit(
          exit,
          lazyAction(actions, (m) => m.control(pausing)),
        ),
      );
  }
}

/** `sluice pipeline cancel ID`. */
export function cancelCommand(pipeline: Command, exit: ExitState): void {
  pipeline
    .command('cancel')
    .summary(
      'cancel the pipeline: every stage cancels its jobs in flight; inputs not ended are CANCELLED or NOT_SUBMITTED',
    )
    .argument(...ID_ARGUMENT)
    .addOption(new Option('--json', 'the view after the cancel'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nWaits until the pipeline has ended and written its files.\n\nExample:\n  sluice pipeline cancel pipeline/nightly\n\nExit code: 0 cancelled, 1 it had already ended, 2 usage (no such pipeline).`,
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.cancel),
      ),
    );
}
