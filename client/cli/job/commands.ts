/** The job orchestration's commands — `sluice run`, `status`, `cancel`, `result` — registered on the program by main. */
import { type Command, Option } from 'commander';
import { JOB_COMMANDS } from '../groups';
import { dataDirOption, jsonOption, lazyAction, parsePositiveInt, withExit, type ExitState } from '../options';
import type { RunOptions } from './actions';

/** The actions, loaded when a command runs. */
const actions = () => import('./actions');

const JOB_STATE_EXIT =
  "Exit code: the job's state — 0 completed, 1 failed / timed out / expired, 3 cancelled, 4 still running; 2 usage (no such job).";

/** `sluice run`. */
function runCommand(program: Command, exit: ExitState): void {
  program
    .command('run')
    .summary(JOB_COMMANDS.run.summary)
    .description(
      'Starts a job workflow on an endpoint (by id or name; an unknown endpoint is refused before anything starts, naming those that exist) and shows its phases, progress and (with --stream) its chunks until it ends.',
    )
    .addOption(new Option('--endpoint <id|name>', 'endpoint id or name (required)'))
    .addOption(new Option('--input <json|@file>', 'the job input: a JSON object, or @file holding one (required)'))
    .option('--stream', "stream the job's output: print each chunk as it is stored")
    .option('--webhook', 'learn of completion by webhook, with a polling fallback (the default)')
    .option('--poll', 'learn of completion by polling /status')
    .option('--detach', 'print the workflow id and return at once')
    .addOption(jsonOption())
    .option(
      '--id <id>',
      'workflow id (job/<id>); default a random UUID. Refused while a job with that id runs; after it ended, the id starts a new run with its own records',
    )
    .addOption(
      new Option(
        '--max-attempts <n>',
        "attempts, retries of FAILED / TIMED_OUT included (default: the job options' default, 3)",
      ).argParser(parsePositiveInt),
    )
    .addOption(
      new Option('--execution-timeout <ms>', "the service's execution timeout of the job").argParser(parsePositiveInt),
    )
    .addOption(new Option('--ttl <ms>', "the service's time to live of the job").argParser(parsePositiveInt))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `
Examples:
  sluice run --endpoint echo --input '{"hello":"world"}'
  sluice run --endpoint stream --input '{"chunks":5}' --stream
  sluice run --endpoint sleep --input @job.json --detach --json

Exit code: 0 completed, 1 failed / timed out / expired, 2 usage, 3 cancelled, 130 interrupted (the job goes on).`,
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => (o: RunOptions) => m.run(o)),
      ),
    );
}

/** `sluice status`. */
function statusCommand(program: Command, exit: ExitState): void {
  program
    .command('status')
    .summary(JOB_COMMANDS.status.summary)
    .argument('<id>', 'the job: job/<id> or <id>')
    .addOption(jsonOption())
    .addOption(dataDirOption())
    .addHelpText('after', `\nExample:\n  sluice status job/4f7c...\n\n${JOB_STATE_EXIT}`)
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.status),
      ),
    );
}

/** `sluice cancel`. */
function cancelCommand(program: Command, exit: ExitState): void {
  program
    .command('cancel')
    .summary(JOB_COMMANDS.cancel.summary)
    .argument('<id>', 'the job: job/<id> or <id>')
    .addOption(jsonOption())
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nCancels the workflow, which cancels the remote job, and waits until it has ended.

Example:
  sluice cancel job/4f7c...

Exit code: 0 the job was cancelled, 1 it had already ended (or ended otherwise before the cancel took effect), 2 usage.
Afterwards \`sluice status\` and \`sluice result\` report it CANCELLED (exit 3).`,
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.cancel),
      ),
    );
}

/** `sluice result`. */
function resultCommand(program: Command, exit: ExitState): void {
  program
    .command('result')
    .summary(JOB_COMMANDS.result.summary)
    .argument('<id>', 'the job: job/<id> or <id>')
    .option('--wait', 'wait for a running job to end')
    .option('--chunks', 'print the stream chunks stored for the job, one JSON per line')
    .addOption(jsonOption())
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nExamples:\n  sluice result job/4f7c... --json\n  sluice result job/4f7c... --chunks\n\n${JOB_STATE_EXIT}`,
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.result),
      ),
    );
}

/** Registers `run`, `status`, `cancel` and `result`, in the order `sluice --help` lists them. */
export function registerJobCommands(program: Command, exit: ExitState): void {
  for (const register of [runCommand, statusCommand, cancelCommand, resultCommand]) register(program, exit);
}
