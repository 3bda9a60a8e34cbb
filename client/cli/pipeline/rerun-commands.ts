/** `sluice pipeline rerun ID`, and the same command under the name `retry-failed` (hidden, as `sluice batch` has it); registered by commands.ts. */
import { type Command, Option } from 'commander';

import { dataDirOption, intervalOption, lazyAction, withExit, type ExitState } from '../options';
import { ID_ARGUMENT, PIPELINE_EXIT_HELP } from './output';

const actions = () => import('./actions');

export function registerRerunCommands(pipeline: Command, exit: ExitState): void {
  for (const [name, hidden] of [
    ['rerun', false],
    ['retry-failed', true],
  ] as const)
    pipeline
      .command(name, { hidden })
      .summary('re-run the FAILED inputs of an ended pipeline, each from the stage where it failed, and watch it')
      .description(
        "Starts a new run of the pipeline (same id, definition, endpoints and output location) over the inputs that ended FAILED: each goes on from the stage where it failed, reading the earlier stages' kept outputs (they are not run again). The previous attempt's results.jsonl, dead-letter.jsonl, summary.json and stages/ are kept in <out>/attempts/<n>/; at the end results.jsonl and stages/<name>.jsonl hold the kept lines and the rerun's, one line per input.",
      )
      .argument(...ID_ARGUMENT)
      .option('--detach', 'print the run started and exit 0 without watching')
      .addOption(
        new Option(
          '--json',
          "JSON lines of the pipeline's view, the last one final; with --detach the run started ({workflowId, runId, previousRunId, attempt, inputs, outDir}); refused: {rerun: false, code, message}",
        ),
      )
      .addOption(intervalOption())
      .addOption(dataDirOption())
      .addHelpText(
        'after',
        `
Examples:
  sluice pipeline rerun pipeline/nightly
  sluice pipeline rerun nightly --detach --json

Refused (nothing started): 2 no such pipeline, 4 the pipeline is still running, 1 nothing failed (or it ended
FAILED / TERMINATED without outcome files). Otherwise, once it ends: ${PIPELINE_EXIT_HELP.replace(/^Exit code: /, '')}`,
      )
      .action(
        withExit(
          exit,
          lazyAction(actions, (m) => m.rerun),
        ),
      );
}
