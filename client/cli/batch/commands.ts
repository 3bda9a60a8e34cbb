/** The batch orchestration's command group — `sluice batch start|status|watch|pause|resume|cancel|rerun|results|list` — registered on the program by main, one step per subcommand (start and rerun in run-commands.ts). */
import { type Command, Option } from 'commander';
import { batchWorkflowId } from '../../../contracts/names/batch';
import { BATCH_GROUP } from '../groups';
import { idControlExitHelp, pauseResumeCommands } from '../pause-resume';
import { BATCH_EXIT_HELP } from './output';
/** The actions, loaded when a command runs. */
const actions = () => import('./actions');
import { ID_ARGUMENT } from './parse';
import { rerunCommands, startCommand } from './run-commands';
import { dataDirOption, intervalOption, lazyAction, parsePositiveInt, withExit, type ExitState } from '../options';

/** `sluice batch status ID`. */
function statusCommand(batch: Command, exit: ExitState): void {
  batch
    .command('status')
    .summary('counts by state, rates, ETA, spend, waiting reasons, last errors')
    .argument(...ID_ARGUMENT)
    .addOption(new Option('--json', 'the view: workflowId, workflowStatus, state (the BatchState)'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nExamples:\n  sluice batch status batch/nightly\n  sluice batch status nightly --json\n\n${BATCH_EXIT_HELP}`,
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.status),
      ),
    );
}

/** `sluice batch watch ID`. */
function watchCommand(batch: Command, exit: ExitState): void {
  batch
    .command('watch')
    .summary('show a batch live until it ends')
    .argument(...ID_ARGUMENT)
    .addOption(new Option('--json', "JSON lines of the batch's view, the last one final"))
    .addOption(intervalOption())
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nExample:\n  sluice batch watch batch/nightly\n\n${BATCH_EXIT_HELP} 130: interrupted (the batch keeps running).`,
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.watch),
      ),
    );
}

/** `sluice batch pause ID` and `resume ID`. */
function pauseResumeBatchCommands(batch: Command, exit: ExitState): void {
  pauseResumeCommands(
    batch,
    exit,
    {
      argument: ID_ARGUMENT,
      summary: {
        pause: 'stop submitting (jobs in flight finish); returns once nothing more is submitted',
        resume: 'submit again after a pause',
      },
      state: 'BatchState',
      example: batchWorkflowId('nightly'),
      exitHelp: idControlExitHelp('batch'),
    },
    actions,
  );
}

/** `sluice batch cancel ID`. */
function cancelCommand(batch: Command, exit: ExitState): void {
  batch
    .command('cancel')
    .summary('cancel the batch: in-flight jobs are cancelled, unsent inputs recorded NOT_SUBMITTED')
    .argument(...ID_ARGUMENT)
    .addOption(new Option('--json', 'the view after the cancel'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nWaits until the batch has ended and written its outcome files.

Example:
  sluice batch cancel batch/nightly

Exit code: 0 the batch was cancelled, 1 it had already ended (or ended otherwise first), 2 usage (no such batch).
Afterwards \`sluice batch status\` reports it CANCELLED (exit 3).`,
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.cancel),
      ),
    );
}

/** `sluice batch results ID`. */
function resultsCommand(batch: Command, exit: ExitState): void {
  batch
    .command('results')
    .summary('the outcome of each input, as JSON lines (exit 4 while the batch runs)')
    .argument(...ID_ARGUMENT)
    .option('--failed', 'only inputs that did not complete (failed, bad input, expired, cancelled, not submitted)')
    .addOption(new Option('--json', 'the same JSON lines'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nOne line per input: {"index", "status", "output" | "error", "attempts", "remoteJobIds", ...}; of a running batch,
the outcomes so far.

Examples:
  sluice batch results batch/nightly > results.jsonl
  sluice batch results nightly --failed

${BATCH_EXIT_HELP}`,
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.results),
      ),
    );
}

/** `sluice batch list`. */
function listCommand(batch: Command, exit: ExitState): void {
  batch
    .command('list')
    .summary('batches: id, status, start and end')
    .addOption(new Option('--limit <n>', 'batches at most').argParser(parsePositiveInt).default(50))
    .addOption(new Option('--json', 'a JSON array of {workflowId, batchId, status, startTime, closeTime}'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      '\nExamples:\n  sluice batch list\n  sluice batch list --json --limit 10\n\nExit code: 0, 2 usage.',
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.list),
      ),
    );
}

/** The subcommands, in the order `sluice batch --help` lists them. */
const SUBCOMMANDS = [
  startCommand,
  statusCommand,
  watchCommand,
  pauseResumeBatchCommands,
  cancelCommand,
  rerunCommands,
  resultsCommand,
  listCommand,
];

/** Registers `sluice batch` and its subcommands. */
export function registerBatchCommands(program: Command, exit: ExitState): void {
  const batch = program
    .command(BATCH_GROUP.names[0]!)
    .summary(BATCH_GROUP.summary)
    .description(
      'Batches: each line of a JSONL file is one job on an endpoint, run through the batch workflow with a concurrency window, retries, cost and deadline caps. Ctrl-C while watching leaves the batch running.',
    )
    .addHelpText(
      'after',
      `
Examples:
  sluice batch start inputs.jsonl --endpoint my-model --concurrency 100
  sluice batch status batch/nightly --json
  sluice batch results batch/nightly --failed

${BATCH_EXIT_HELP}
130: interrupted while watching (the batch keeps running; \`sluice batch watch ID\` re-attaches).`,
    );
  for (const register of SUBCOMMANDS) register(batch, exit);
}
