/**
 * The pipeline orchestration's command group — `sluice pipeline validate|start|status|watch|pause|resume|cancel|rerun|results|list` —
 * registered on the program by main, one step per subcommand (pause, resume and cancel in control-commands.ts, rerun in rerun-commands.ts).
 */
import { type Command, Option } from 'commander';
import { PIPELINE_GROUP } from '../groups';
import { cancelCommand, pauseResumePipelineCommands } from './control-commands';
import { ID_ARGUMENT, PIPELINE_EXIT_HELP } from './output';
import { registerRerunCommands } from './rerun-commands';
import {
  dataDirOption,
  intervalOption,
  jsonOption,
  lazyAction,
  parsePositiveInt,
  withExit,
  type ExitState,
} from '../options';

/** The actions, loaded when a command runs. */
const validating = () => import('./validate');
const starting = () => import('./start');
const actions = () => import('./actions');

/** `sluice pipeline validate FILE`: offline. */
function validateCommand(pipeline: Command, exit: ExitState): void {
  pipeline
    .command('validate')
    .summary('check a pipeline definition file offline: its shape, stage names and every expression')
    .description(
      'Reads FILE (YAML or JSON) and checks all that can be checked without the service: the fields and their ranges, unique stage names, every JSONata expression compiled, and that each expression reads only `input` and the stages before its own ($item and $index only in the input of a stage with each). Every error names the stage, the field, and the line and column in FILE. Offline: endpoint names are not resolved (the service is not asked whether they exist).',
    )
    .argument('<file>', 'the definition: a .yaml, .yml or .json file')
    .addOption(jsonOption())
    .addHelpText(
      'after',
      `
Output: "ok: <name>, N stages (a → b)", or one line per error on stderr:
  stage "fields", field "when", line 12 col 31: reads stage "summary", which comes after stage "fields": ...
--json prints {"ok", "name", "stages", "errors": [{"code", "stage", "field", "line", "column", "position", "message"}]}.

Examples:
  sluice pipeline validate examples/pipelines/docs.yaml
  sluice pipeline validate pipeline.json --json

Exit code: 0 valid; 2 invalid (or the file cannot be read).`,
    )
    .action(
      withExit(
        exit,
        lazyAction(validating, (m) => (file: string, o: { json?: boolean }) => m.validateCommand(file, o)),
      ),
    );
}

/** `sluice pipeline start FILE INPUTS`. */
function startCommand(pipeline: Command, exit: ExitState): void {
  pipeline
    .command('start')
    .summary('start a pipeline over a JSONL file and watch it (Ctrl-C stops watching, not the pipeline)')
    .argument('<file>', 'the definition: a .yaml, .yml or .json file (validated first: exit 2 with every error)')
    .argument('<inputs>', 'the JSONL input, one JSON object per line (a path or s3://bucket/key)')
    .option(
      '--out <dir>',
      'where results.jsonl, stages/, dead-letter.jsonl and summary.json go (default <data dir>/pipelines/<id>)',
    )
    .option('--id <id>', 'the pipeline id: pipeline/<id> (default a random UUID; used once)')
    .option('--detach', 'print the id and exit 0 without watching')
    .addOption(
      new Option('--json', 'with --detach {workflowId, outDir}; else JSON lines of the view, the last one final'),
    )
    .addOption(intervalOption())
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nEach stage runs as a batch (batch/pipeline/<id>/<stage>); its endpoint may be a name or an id.

Examples:
  sluice pipeline start examples/pipelines/docs.yaml docs.jsonl --out out/docs
  sluice pipeline start pipeline.yaml in.jsonl --id nightly --detach

${PIPELINE_EXIT_HELP} 130: interrupted (the pipeline keeps running).`,
    )
    .action(
      withExit(
        exit,
        lazyAction(starting, (m) => m.startCommand),
      ),
    );
}

/** `sluice pipeline status ID` and `watch ID`. */
function viewCommands(pipeline: Command, exit: ExitState): void {
  for (const [name, summary] of [
    ['status', 'inputs done and in flight, and per stage: inputs there, jobs done, in flight, rate, ETA, spend'],
    ['watch', 'show a pipeline live until it ends: a bar per stage on a terminal, else a line per stage'],
  ] as const) {
    const c = pipeline
      .command(name)
      .summary(summary)
      .argument(...ID_ARGUMENT)
      .addOption(new Option('--json', 'the view: workflowId, workflowStatus, state (each stage with its batch state)'))
      .addOption(dataDirOption())
      .addHelpText('after', `\nExample:\n  sluice pipeline ${name} pipeline/nightly\n\n${PIPELINE_EXIT_HELP}`);
    if (name === 'watch')
      c.addOption(intervalOption()).action(
        withExit(
          exit,
          lazyAction(actions, (m) => m.watch),
        ),
      );
    else
      c.action(
        withExit(
          exit,
          lazyAction(actions, (m) => m.status),
        ),
      );
  }
}

/** `sluice pipeline results ID`. */
function resultsCommand(pipeline: Command, exit: ExitState): void {
  pipeline
    .command('results')
    .summary("each input's result line, as JSON lines (exit 4 while the pipeline runs)")
    .argument(...ID_ARGUMENT)
    .option('--failed', 'only inputs that did not complete (FAILED, BAD_INPUT, NOT_SUBMITTED, CANCELLED)')
    .option('--stage <name>', 'only inputs that stopped at this stage')
    .addOption(new Option('--json', 'the same JSON lines'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nOne line per input: {"index", "status", "stage", "output" | "error", "stages": {<name>: {status, attempts, jobIds, ...}}}.

Examples:
  sluice pipeline results pipeline/nightly > results.jsonl
  sluice pipeline results nightly --failed --stage fields

${PIPELINE_EXIT_HELP}`,
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.results),
      ),
    );
}

/** `sluice pipeline list`. */
function listCommand(pipeline: Command, exit: ExitState): void {
  pipeline
    .command('list')
    .summary('pipelines: id, status, start and end')
    .addOption(new Option('--limit <n>', 'pipelines at most').argParser(parsePositiveInt).default(50))
    .addOption(new Option('--json', 'a JSON array of {workflowId, pipelineId, status, startTime, closeTime}'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      '\nExamples:\n  sluice pipeline list\n  sluice pipeline list --json\n\nExit code: 0, 2 usage.',
    )
    .action(
      withExit(
        exit,
        lazyAction(actions, (m) => m.list),
      ),
    );
}

/** The subcommands, in the order `sluice pipeline --help` lists them. */
const SUBCOMMANDS = [
  validateCommand,
  startCommand,
  viewCommands,
  pauseResumePipelineCommands,
  cancelCommand,
  registerRerunCommands,
  resultsCommand,
  listCommand,
];

/** Registers `sluice pipeline` and its subcommands. */
export function registerPipelineCommands(program: Command, exit: ExitState): void {
  const pipeline = program
    .command('pipeline')
    .summary(PIPELINE_GROUP.summary)
    .description(
      'Pipelines: every line of a JSONL file flows through stages, each a job on an endpoint, with JSONata expressions mapping one stage to the next (docs/pipelines.md).',
    )
    .addHelpText(
      'after',
      `\nExamples:\n  sluice pipeline validate examples/pipelines/docs.yaml\n  sluice pipeline start examples/pipelines/docs.yaml docs.jsonl --out out/docs\n  sluice pipeline status pipeline/<id>\n\n${PIPELINE_EXIT_HELP}\n130: interrupted while watching (the pipeline keeps running).`,
    );
  for (const register of SUBCOMMANDS) register(pipeline, exit);
}
