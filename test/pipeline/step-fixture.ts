/** What the pipeline step unit tests share: a step's request built as the workflow builds it from the last result. */
import { type RunScope } from '../../contracts';
import { type PipelineStepRequest, type PipelineStepResult } from '../../activities/pipeline/types';

/** The pipeline under test: its run, its stages' batch runs, its input file and output folder. */
export interface StepScope {
  run: RunScope;
  stageRuns: RunScope[];
  source: string;
  outDir: string;
}

/** Step `seq`'s request: the stages' feeds and positions from `last` (the first step reads the input). */
export const stepRequest = (p: StepScope, seq: number, last?: PipelineStepResult): PipelineStepRequest => ({
  run: p.run,
  seq,
  source: p.source,
  outDir: p.outDir,
  stages: p.stageRuns.map((r, k) => ({
    run: r,
    feed: last?.stages[k]!.feed ?? { line: 0, offset: 0 },
    ...(last?.stages[k]!.after !== undefined ? { after: last.stages[k]!.after } : {}),
  })),
  ...(last ? {} : { read: { from: { line: 0, offset: 0 }, max: 20 } }),
  waitMs: 0,
});
