/**
 * `sluice/workflows`: sluice's orchestrations as steps of your own Temporal workflows. Import it
 * in a workflow file: deterministic code only (@temporalio/workflow and zod-free names), no Node
 * module, nothing of sluice's daemon. Each `runX(key, input, options)` runs sluice's workflow as a
 * child on sluice's task queue (a sluice daemon runs it, your worker never does) under the id
 * `<kind>/<your workflow id>/<key>`, and resolves with its typed result. docs/pipelines.md, "Your
 * own workflows".
 */
export { runJob, type RunJobInput } from './run-job';
export { runBatch, type RunBatchInput } from './run-batch';
export { runPipeline, type RunPipelineInput } from './run-pipeline';
export { type RunOptions } from './run-child';
export { childOfWorkflowId, TASK_QUEUE, FailureType } from '../../contracts/names';
export type { JobWorkflowResult, JobOptionsInput } from '../../contracts/job';
export type { BatchState, BatchOptionsInput, BatchResultLine } from '../../contracts/batch';
export type { PipelineDefinitionInput } from '../../contracts/pipeline/definition';
export type { PipelineState, PipelineResultLine, PipelineRunInput } from '../../contracts/pipeline/run';
