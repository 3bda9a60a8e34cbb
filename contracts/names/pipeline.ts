/**
 * Names of the pipeline orchestration, defined once for its workflow, activities and clients:
 * workflow ids (the pipeline's and its stages' batches), query and update names, final statuses,
 * results-store keys. Zod-free.
 */
import { type RunScope, runKey } from './results';

/** Workflow id of a pipeline: `pipeline/<id>`. */
export const pipelineWorkflowId = (id: string): string => (id.startsWith('pipeline/') ? id : `pipeline/${id}`);

/** The pipeline id inside a pipeline workflow id. */
export const pipelineIdOf = (workflowId: string): string => workflowId.replace(/^pipeline\//, '');

/** Workflow id of the batch that runs stage `stage` of a pipeline: `batch/pipeline/<id>/<stage>`. */
export const stageBatchId = (pipelineId: string, stage: string): string =>
  `batch/pipeline/${pipelineIdOf(pipelineId)}/${stage}`;

/** True for the workflow id of a pipeline stage's batch. */
export const isStageBatchId = (workflowId: string): boolean => workflowId.startsWith('batch/pipeline/');

export const PIPELINE_QUERIES = { state: 'pipelineState' } as const;

/** `patched()` ids of the pipeline workflow's changes (docs/orchestrator.md, "Changing the workflow safely"). */
export const PIPELINE_PATCHES = {
  /** `maxCost` enforced over the stages' spend: once reached, every stage's batch is told to stop submitting. */
  costCap: 'pipeline-cost-cap',
} as const;
export const PIPELINE_UPDATES = { pause: 'pausePipeline', resume: 'resumePipeline' } as const;

/**
 * What one input of a pipeline ended as: COMPLETED (through every stage), FAILED at a stage (its job
 * failed, timed out or expired, or an expression failed), SKIPPED at a stage (its `when` was false),
 * BAD_INPUT (the line is no JSON object), NOT_SUBMITTED (the pipeline stopped before it ran: cost cap,
 * deadline, cancel), CANCELLED (its job was cancelled with the pipeline).
 */
export const PIPELINE_OUTCOMES = ['COMPLETED', 'FAILED', 'SKIPPED', 'BAD_INPUT', 'NOT_SUBMITTED', 'CANCELLED'] as const;

/** A pipeline's records in the results store, per run. */
export const pipelineKeys = {
  /** The definition and the endpoints of its stages (written once, read by every step). */
  definition: (run: RunScope): string => `${runKey(run)}/definition.json`,
  /** What step `seq` takes (the stage outcome segments it reads): a retried step takes the same. */
  plan: (run: RunScope, seq: number): string => `${runKey(run)}/steps/plan-${seq}.json`,
  /** The contexts (each input's line and every stage's outcome so far) round `seq` changed, and where the others are. */
  roundContexts: (run: RunScope, seq: number): string => `${runKey(run)}/contexts/${String(seq).padStart(9, '0')}.json`,
  roundContextsPrefix: (run: RunScope): string => `${runKey(run)}/contexts/`,
  /** Runs from before the round files: the context of input `index`, one file per input. */
  context: (run: RunScope, index: number): string => `${runKey(run)}/context/${index}.json`,
  contextPrefix: (run: RunScope): string => `${runKey(run)}/context/`,
  /** Result lines of the inputs that ended in step `seq` (merged into results.jsonl). */
  results: (run: RunScope, seq: number): string => `${runKey(run)}/results/${String(seq).padStart(9, '0')}.jsonl`,
  resultsPrefix: (run: RunScope): string => `${runKey(run)}/results/`,
  /** The original lines of the inputs that failed in step `seq`, with their stage. */
  deadLetter: (run: RunScope, seq: number): string =>
    `${runKey(run)}/dead-letter/${String(seq).padStart(9, '0')}.jsonl`,
  deadLetterPrefix: (run: RunScope): string => `${runKey(run)}/dead-letter/`,
  /** A rerun's lines kept from the attempt before (merged with its own, after the steps' segments). */
  keptResults: (run: RunScope): string => `${runKey(run)}/results/kept.jsonl`,
  keptStageOutcomes: (run: RunScope, stage: string): string => `${runKey(run)}/stages/${stage}/kept.jsonl`,
  /** Outcomes of stage `stage` read in step `seq`, by input (merged into stages/<stage>.jsonl). */
  stageOutcomes: (run: RunScope, stage: string, seq: number): string =>
    `${runKey(run)}/stages/${stage}/${String(seq).padStart(9, '0')}.jsonl`,
  stageOutcomesPrefix: (run: RunScope, stage: string): string => `${runKey(run)}/stages/${stage}/`,
};

/**
 * Where a stage's batch reads its feed and writes its own files, under the pipeline's output
 * location; a rerun's (attempt 2 and on) in `attempt-<n>/` beneath, its own feed and files.
 */
export const stageDirs = (outDir: string, stage: string, attempt = 1): { feed: string; out: string } => {
  const base = `${outDir.replace(/\/+$/, '')}/stages/${stage}${attempt > 1 ? `/attempt-${attempt}` : ''}`;
  return { feed: `${base}/feed/`, out: base };
};

/** Where a rerun keeps the files attempt `attempt` wrote (results.jsonl, dead-letter.jsonl, summary.json, stages/). */
export const pipelineAttemptDir = (outDir: string, attempt: number): string =>
  `${outDir.replace(/\/+$/, '')}/attempts/${attempt}`;

/** The name of a rerun's source in the attempt directory. */
export const RERUN_SOURCE = 'rerun.jsonl';

/** What rerun attempt `attempt` reads instead of the input file: one line per failed input, its context. */
export const pipelineRerunSource = (outDir: string, attempt: number): string =>
  `${pipelineAttemptDir(outDir, attempt - 1)}/${RERUN_SOURCE}`;
