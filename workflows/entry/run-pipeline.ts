/** `runPipeline`: a JSONL file through several endpoints, durably, as a child pipeline workflow of a user's workflow (sluice/workflows). */
import type { PipelineRunInput, PipelineState } from '../../contracts/pipeline/run';
import { runChild, type RunOptions } from './run-child';

/**
 * What `runPipeline` takes: the definition as the library takes it (`sluice.pipeline.start`), the
 * `source` and `outDir` (absolute paths or `s3://` URLs the daemon reaches: a workflow has no working
 * directory), `options`, and `endpoints`: the endpoint id of each stage in order (without it, each
 * stage's `endpoint` is taken as its id).
 */
export type RunPipelineInput = PipelineRunInput;

/**
 * Runs a pipeline through sluice's pipeline workflow, as the child `pipeline/<this workflow's id>/<key>`
 * (`sluice pipeline status` shows it under that id), and resolves with its final state once every
 * input has its outcome: counts by status, each stage's progress, and `outDir`, where results.jsonl,
 * stages/, dead-letter.jsonl and summary.json are. Per-input results never enter this workflow's
 * history: read them in an activity (`sluice.pipeline.results(...)`, the library). Rejects with
 * Temporal's ChildWorkflowFailure when the pipeline is cancelled (cancelling this workflow cancels
 * it: every stage cancels its jobs in flight, the outcome files are still written) or fails; a
 * definition that does not validate fails before anything starts with INVALID_INPUT, every issue
 * with its stage, field and position.
 */
export async function runPipeline(key: string, input: RunPipelineInput, options?: RunOptions): Promise<PipelineState> {
  return runChild<PipelineState>('pipeline', key, input, options);
}
