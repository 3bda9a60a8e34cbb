/**
 * A user's own Temporal workflow running a two-stage pipeline as one step (docs/pipelines.md, "Your
 * own workflows"): every input through a first endpoint then a second, with sluice's guarantees at
 * each stage. In a user's project the import is `from 'sluice/workflows'`.
 */
import { runPipeline, type PipelineState } from '../../workflows/entry';

export interface TwoStagesInput {
  /** The endpoint of both stages (an echo handler in the test). */
  endpointId: string;
  /** The JSONL input: lines `{"n": <number>}`; an absolute path or s3:// URL. */
  source: string;
  /** Where the pipeline writes results.jsonl, stages/, dead-letter.jsonl and summary.json. */
  outDir: string;
  /** sluice's task queue, when its daemons poll another than `sluice`. */
  sluiceTaskQueue?: string;
}

export async function twoStages(input: TwoStagesInput): Promise<PipelineState> {
  // The child pipeline/<this workflow's id>/double; cancelling this workflow cancels it.
  return runPipeline(
    'double',
    {
      definition: {
        name: 'double',
        stages: [
          { name: 'first', endpoint: input.endpointId, input: "{ 'n': $.input.n * 2 }" },
          { name: 'second', endpoint: input.endpointId, input: "{ 'n': $.first.output.n + 1 }" },
        ],
        output: "{ 'n': $.input.n, 'result': $.second.output.n }",
      },
      source: input.source,
      outDir: input.outDir,
    },
    input.sluiceTaskQueue ? { taskQueue: input.sluiceTaskQueue } : {},
  );
}
