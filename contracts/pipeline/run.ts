/**
 * Wire shapes of a pipeline's run: the workflow's input, its live state (query) and summary, and
 * one input's line in results.jsonl. Per-input data never crosses the Temporal boundary: activities
 * read the inputs and the stages' outcomes and write the results; history holds cursors and counts.
 */
import { z } from 'zod';
import { BatchOutcomeStatus, BatchState } from '../batch';
import { PIPELINE_OUTCOMES } from '../names/pipeline';
import { PipelineDefinition, type PipelineDefinitionInput } from './definition';

/** Options of one run of a pipeline (the definition holds the rest). */
export const PipelineRunOptions = z.strictObject({
  /**
   * Continue-as-new after this many steps even before Temporal suggests it (tests lower it).
   * @default 500
   */
  stepsPerRun: z.number().int().min(2).max(100_000).default(500),
});
export type PipelineRunOptions = z.infer<typeof PipelineRunOptions>;

/** Input of the pipeline workflow. */
export const PipelineWorkflowInput = z.strictObject({
  definition: PipelineDefinition,
  /** The endpoint id of each stage, in order (the client resolves the definition's names). */
  endpoints: z.array(z.string().min(1)).min(1),
  /** The JSONL input: one input per line, a path or `s3://` URL the daemon can read. */
  source: z.string().min(1),
  /** Where results.jsonl, stages/, dead-letter.jsonl and summary.json go. */
  outDir: z.string().min(1),
  options: PipelineRunOptions.default(PipelineRunOptions.parse({})),
  /**
   * A rerun (`sluice pipeline rerun`): the first run id of the run it re-runs and this attempt (2
   * for the first rerun). It reads the failed inputs of that run, each from the stage where it failed.
   */
  rerunOf: z.strictObject({ runId: z.string().min(1), attempt: z.number().int().min(2) }).optional(),
});
export type PipelineWorkflowInput = z.infer<typeof PipelineWorkflowInput>;
export type PipelineWorkflowInputInit = z.input<typeof PipelineWorkflowInput>;

/**
 * A pipeline as a user's workflow runs it (sluice/workflows `runPipeline`): the definition as the
 * library takes it (validated and its expressions compiled on sluice's daemon), and the endpoint
 * id of each stage, in order; without `endpoints`, each stage's `endpoint` is taken as its id.
 */
export type PipelineRunInput = Omit<PipelineWorkflowInputInit, 'definition' | 'endpoints' | 'rerunOf'> & {
  definition: PipelineDefinitionInput;
  endpoints?: string[];
};

export const PipelineOutcomeStatus = z.enum(PIPELINE_OUTCOMES);
export type PipelineOutcomeStatus = z.infer<typeof PipelineOutcomeStatus>;

/** One input at one stage (an `each` stage: one per element, in order). */
export const StageOutcome = z.looseObject({
  status: BatchOutcomeStatus,
  output: z.unknown().optional(),
  error: z.string().optional(),
  errorType: z.string().optional(),
  attempts: z.number().int(),
  jobIds: z.array(z.string()),
  submittedAt: z.number().optional(),
  endedAt: z.number().optional(),
  executionTime: z.number().optional(),
});
export type StageOutcome = z.infer<typeof StageOutcome>;

/** One line of results.jsonl: what input `index` ended as, written exactly once. */
export const PipelineResultLine = z.looseObject({
  index: z.number().int(),
  status: PipelineOutcomeStatus,
  /** The stage where a not COMPLETED input stopped (`output` when the output expression failed). */
  stage: z.string().optional(),
  output: z.unknown().optional(),
  error: z.string().optional(),
  /** The job's error type, or an expression failure's code (`NO_VALUE`...). */
  errorType: z.string().optional(),
  /** An expression failure's position (JSONata's, 1-based). */
  position: z.number().int().optional(),
  /** Each stage the input reached: its outcome without the output (stages/<name>.jsonl has those). */
  stages: z.record(z.string(), z.union([StageOutcome, z.array(StageOutcome.nullable())])),
  endedAt: z.number(),
});
export type PipelineResultLine = z.infer<typeof PipelineResultLine>;

/** One stage's progress as the pipeline sees it; `batch` (its batch's own state) is added by the client. */
export const PipelineStageState = z.strictObject({
  name: z.string(),
  endpointId: z.string(),
  /** The workflow id of the stage's batch. */
  batchId: z.string(),
  /** Rows (jobs) fed to the stage so far. */
  fed: z.number().int(),
  /** Inputs at this stage now (fed, not all outcomes in). */
  active: z.number().int(),
  /** No more rows will come (the batch ends once the rows fed have their outcomes). */
  closed: z.boolean(),
  batch: BatchState.optional(),
});
export type PipelineStageState = z.infer<typeof PipelineStageState>;

/** Live state of a pipeline (the `pipelineState` query) and, at the end, its summary. */
export const PipelineState = z.strictObject({
  pipelineId: z.string(),
  name: z.string(),
  phase: z.enum(['running', 'paused', 'cancelling', 'finishing', 'done']),
  counts: z.strictObject({
    /** Inputs in the file (non-blank lines); then read so far, in flight (read, not ended), ended. */
    total: z.number().int().optional(),
    read: z.number().int(),
    inFlight: z.number().int(),
    done: z.number().int(),
    byStatus: z.partialRecord(PipelineOutcomeStatus, z.number().int()),
  }),
  /** The whole input file has been read. */
  inputDone: z.boolean(),
  stages: z.array(PipelineStageState),
  startedAt: z.number(),
  endedAt: z.number().optional(),
  runs: z.number().int(),
  outDir: z.string(),
  /** The sum of the stages' estimated spend (USD) the pipeline last knew; kept only with a `maxCost`. */
  spend: z.number().optional(),
  /** The pipeline's cost cap (its definition's `maxCost`, USD), when it has one. */
  maxCost: z.number().optional(),
  /** Why it submits no more, once it stopped: `cost-cap`, `deadline`, cancelled. */
  stopped: z.string().optional(),
});
export type PipelineState = z.infer<typeof PipelineState>;
