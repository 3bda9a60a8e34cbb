/** The pipeline orchestration's command group — `sluice pipeline validate` for now — registered on the program by main. */
import { type Command } from 'commander';
import { jsonOption, lazyAction, withExit, type ExitState } from '../options';

/** The action, loaded when the command runs. */
const validating = () => import('./validate');

/** Registers `sluice pipeline` and its subcommands. */
export function registerPipelineCommands(program: Command, exit: ExitState): void {
  const pipeline = program
    .command('pipeline')
    .summary('run every input through several endpoints, stage after stage: validate a definition')
    .description(
      'Pipelines: every line of a JSONL file flows through stages, each a job on an endpoint, with JSONata expressions mapping one stage to the next (docs/pipelines.md).',
    )
    .addHelpText('after', '\nExamples:\n  sluice pipeline validate examples/pipelines/docs.yaml');

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
