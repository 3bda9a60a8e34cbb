/** The pipeline subcommands that change a running pipeline: `sluice pipeline pause|resume|cancel ID` (registered by commands.ts). */
import { type Command, Option } from 'commander';
import { pipelineWorkflowId } from '../../../contracts/names/pipeline';
import { ID_ARGUMENT } from './output';
import { idControlExitHelp, pauseResumeCommands } from '../pause-resume';
import { dataDirOption, lazyAction, withExit, type ExitState } from '../options';

/** The actions, loaded when a command runs. */
const actions = () => import('./actions');

/** `sluice pipeline pause ID` and `resume ID` (forwarded to every stage's batch). */
export function pauseResumePipelineCommands(pipeline: Command, exit: ExitState): void {
  pauseResumeCommands(
    pipeline,
    exit,
    {
      argument: ID_ARGUMENT,
      summary: {
        pause: 'stop reading inputs and pause every stage (jobs in flight finish)',
        resume: 'go on after a pause',
      },
      state: 'PipelineState',
      example: pipelineWorkflowId('nightly'),
      exitHelp: idControlExitHelp('pipeline'),
    },
    actions,
  );
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
