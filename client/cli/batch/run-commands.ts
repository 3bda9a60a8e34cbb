/** The batch subcommands that start a run of the batch workflow: `sluice batch start FILE` and `sluice batch rerun ID` (registered by commands.ts). */
import { type Command, Option } from 'commander';
import { BATCH_EXIT_HELP } from './output';
import { DEFAULTS, ID_ARGUMENT, parseCost, parseDeadline, parsePrice, parsePriority } from './parse';
import { dataDirOption, intervalOption, lazyAction, parsePositiveInt, withExit, type ExitState } from '../options';

/** The actions, loaded when a command runs. */
const actions = () => import('./actions');
const starting = () => import('./start');

/** `start`'s limits: the concurrency window and per-key cap, spend, deadline, priority, attempts. */
function limitOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--concurrency <n>', `jobs in flight at most (default: ${DEFAULTS.concurrency})`).argParser(
        parsePositiveInt,
      ),
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
        `attempts per input, retries of FAILED / TIMED_OUT included (default: ${DEFAULTS.maxAttempts})`,
      ).argParser(parsePositiveInt),
    );
}

/** `sluice batch start FILE`. */
export function startCommand(batch: Command, exit: ExitState): void {
  const cmd = batch
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
    .option(
      '--out <dir>',
      'where results.jsonl, dead-letter.jsonl and summary.json go, a directory or s3://bucket/prefix/; the daemon writes there (default: <data dir>/batches/<id>)',
    );
  limitOptions(cmd)
    .addOption(
      new Option(
        '--input-format <format>',
        `how lines are read: {"input": ...} (body), the input itself (bare), or either (default: ${DEFAULTS.inputFormat})`,
      ).choices(['auto', 'body', 'bare']),
    )
    .option('--poll', 'learn of completions by polling /status (default: webhooks, with a poll for late ones)')
    .option('--per-job', 'the per-job mode: run each input as its own child job workflow (batches up to ~10,000)')
    .addOption(new Option('--per-job-workflows').hideHelp()) // the flag's former name, still accepted
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
    .action(
      withExit(
        exit,
        lazyAction(starting, (m) => m.start),
      ),
    );
}

/** `sluice batch rerun ID`, and the same command under its former name `retry-failed` (hidden, for scripts). */
export function rerunCommands(batch: Command, exit: ExitState): void {
  for (const [name, hidden] of [
    ['rerun', false],
    ['retry-failed', true],
  ] as const)
    batch
      .command(name, { hidden })
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
          "JSON lines of the batch's view, the last one final; with --detach the run started ({workflowId, runId, previousRunId, attempt, inputs, outDir}); refused: {rerun: false, code, message}",
        ),
      )
      .addOption(intervalOption())
      .addOption(dataDirOption())
      .addHelpText(
        'after',
        `
Examples:
  sluice batch rerun batch/nightly
  sluice batch rerun nightly --include-cancelled --concurrency 20 --detach

Refused (nothing started): 2 no such batch, 4 the batch is still running, 1 nothing to re-run (or the batch ended
FAILED / TERMINATED without outcome files). Otherwise the exit code is the batch's at the end, over every input:
${BATCH_EXIT_HELP} \`--detach\` exits 0 once started. 130: interrupted (the batch keeps running).`,
      )
      .action(
        withExit(
          exit,
          lazyAction(actions, (m) => m.rerun),
        ),
      );
}
