/** The batch orchestration's command group — `sluice batch start|status|watch|pause|resume|cancel|retry-failed|results|list` — registered on the program by main. */
import { type Command, Option } from 'commander';
import { BATCH_UPDATES } from '../../../contracts';
import { BATCH_EXIT_HELP } from './output';
import {
  DEFAULTS,
  cancel,
  control,
  list,
  parseCost,
  parseDeadline,
  parsePrice,
  parsePriority,
  parseSeconds,
  results,
  retryFailed,
  status,
  watch,
} from './actions';
import { start } from './start';
import { dataDirOption, parsePositiveInt, withExit, type ExitState } from '../options';

const ID_ARGUMENT = ['<id>', 'the batch: batch/<id> or <id>'] as const;
const intervalOption = () =>
  new Option('--interval <s>', 'seconds between progress lines when not on a terminal (and JSON lines with --json)')
    .argParser(parseSeconds)
    .default(5);

/** Registers `sluice batch` and its subcommands. */
export function registerBatchCommands(program: Command, exit: ExitState): void {
  const batch = program
    .command('batch')
    .summary('run many jobs from a JSONL file, durably: start, watch, pause, resume, cancel, results')
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

  batch
    .command('start')
    .summary('start a batch from a JSONL file and show its progress')
    .description(
      'Starts a batch workflow over FILE (one job input per line) on an endpoint (by id or name; an unknown endpoint is refused before anything starts, naming those that exist), then shows a progress bar (done, failed, in flight, rate, ETA, spend) on a terminal, or a plain line every --interval seconds otherwise, until the batch ends. Ctrl-C stops watching; the batch keeps running.',
    )
    .argument(
      '<file>',
      'the JSONL input: one job per line ({"input": ...} or the input itself, see --input-format); a path or s3://bucket/key',
    )
    .addOption(new Option('--endpoint <id|name>', 'endpoint id or name (required)'))
    .option('--id <id>', 'batch id (workflow batch/<id>); default a random UUID')
    .addOption(
      new Option('--concurrency <n>', `jobs in flight at most (default: ${DEFAULTS.concurrency})`).argParser(
        parsePositiveInt,
      ),
    )
    .option(
      '--out <dir>',
      'where results.jsonl, dead-letter.jsonl and summary.json go, a directory or s3://bucket/prefix/; the daemon writes there (default: <data dir>/batches/<id>)',
    )
    .option(
      '--key <path>',
      'a JSON path into each input ($.tenant): each value gets its own in-flight cap (--key-limit)',
    )
    .addOption(new Option('--key-limit <n>', 'jobs in flight at most per value of --key').argParser(parsePositiveInt))
    .addOption(
      new Option('--max-cost <usd>', 'stop submitting once the estimated spend reaches this many USD').argParser(
        parseCost,
      ),
    )
    .addOption(
      new Option(
        '--price-per-hour <usd>',
        "price of one worker-hour for the spend estimate (default: the endpoint's workers' costPerHr, read over REST)",
      ).argParser(parsePrice),
    )
    .addOption(
      new Option('--deadline <iso>', 'stop submitting at this ISO 8601 time (2025-06-01T18:00:00Z)').argParser(
        parseDeadline,
      ),
    )
    .addOption(
      new Option(
        '--priority <n>',
        `0-9, higher first among batches sharing an endpoint (default: ${DEFAULTS.priority})`,
      ).argParser(parsePriority),
    )
    .addOption(
      new Option(
        '--max-attempts <n>',
        `attempts per input, retries of FAILED / TIMED_OUT included (default: ${DEFAULTS.retry.maxAttempts})`,
      ).argParser(parsePositiveInt),
    )
    .addOption(
      new Option(
        '--input-format <format>',
        `how lines are read: {"input": ...} (body), the input itself (bare), or either (default: ${DEFAULTS.inputFormat})`,
      ).choices(['auto', 'body', 'bare']),
    )
    .option('--poll', 'learn of completions by polling /status (default: webhooks, with a poll for late ones)')
    .option('--per-job-workflows', 'run each input as its own child job workflow (batches up to ~10,000)')
    .option('--detach', 'print the batch id and return at once (exit 0)')
    .addOption(new Option('--json', "JSON lines of the batch's view, the last one final"))
    .addOption(intervalOption())
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `
Examples:
  sluice batch start inputs.jsonl --endpoint my-model
  sluice batch start inputs.jsonl --endpoint my-model --concurrency 200 --key '$.tenant' --key-limit 20
  sluice batch start inputs.jsonl --endpoint my-model --max-cost 25 --deadline 2025-06-01T18:00:00Z --detach

${BATCH_EXIT_HELP} \`--detach\` exits 0 once started. 130: interrupted (the batch keeps running; \`sluice batch watch ID\` re-attaches).`,
    )
    .action(withExit(exit, start));

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
    .action(withExit(exit, status));

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
    .action(withExit(exit, watch));

  // Each is named after the workflow update it sends.
  for (const pausing of [true, false]) {
    const name = pausing ? BATCH_UPDATES.pause : BATCH_UPDATES.resume;
    batch
      .command(name)
      .summary(
        pausing
          ? 'stop submitting (jobs in flight finish); returns once nothing more is submitted'
          : 'submit again after a pause',
      )
      .argument(...ID_ARGUMENT)
      .addOption(new Option('--json', 'the BatchState after the change'))
      .addOption(dataDirOption())
      .addHelpText(
        'after',
        `\nExample:\n  sluice batch ${name} batch/nightly\n\nExit code: 0 done, 1 the batch had already ended, 2 usage (no such batch).`,
      )
      .action(withExit(exit, control(pausing)));
  }

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
    .action(withExit(exit, cancel));

  batch
    .command('retry-failed')
    .summary('run the failed inputs of an ended batch again, as a new run of the same batch')
    .description(
      "Starts the batch again under the same id (same endpoint, input file, output dir and options) over the inputs that ended FAILED, TIMED_OUT or JOB_EXPIRED (with --include-cancelled also CANCELLED and NOT_SUBMITTED), keeping each input's line number as its index; then shows its progress like `start`. Afterwards results.jsonl holds one line per input: the new outcome of each re-run input, the previous one of the others; the previous files are kept in <out dir>/attempts/<n>/.",
    )
    .argument(...ID_ARGUMENT)
    .option(
      '--include-cancelled',
      'also re-run inputs that ended CANCELLED or NOT_SUBMITTED (a cancelled batch, cost cap, deadline)',
    )
    .addOption(
      new Option('--concurrency <n>', "jobs in flight at most (default: the batch's)").argParser(parsePositiveInt),
    )
    .addOption(
      new Option('--max-attempts <n>', "attempts per input in this run (default: the batch's)").argParser(
        parsePositiveInt,
      ),
    )
    .addOption(
      new Option(
        '--max-cost <usd>',
        "stop submitting once this run's estimated spend reaches this many USD (default: the batch's cap)",
      ).argParser(parseCost),
    )
    .addOption(
      new Option(
        '--deadline <iso>',
        "stop submitting at this ISO 8601 time (the batch's own deadline is not carried over)",
      ).argParser(parseDeadline),
    )
    .option('--detach', 'print the batch id and return at once (exit 0)')
    .addOption(
      new Option(
        '--json',
        "JSON lines of the batch's view, the last one final; with --detach the run started ({workflowId, runId, retriedRunId, attempt, inputs, outDir}); refused: {retried: false, code, message}",
      ),
    )
    .addOption(intervalOption())
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `
Examples:
  sluice batch retry-failed batch/nightly
  sluice batch retry-failed nightly --include-cancelled --concurrency 20 --detach

Refused (nothing started): 2 no such batch, 4 the batch is still running, 1 nothing to re-run (or the batch ended
FAILED / TERMINATED without outcome files). Otherwise the exit code is the batch's at the end, over every input:
${BATCH_EXIT_HELP} \`--detach\` exits 0 once started. 130: interrupted (the batch keeps running).`,
    )
    .action(withExit(exit, retryFailed));

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
    .action(withExit(exit, results));

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
    .action(withExit(exit, list));
}
