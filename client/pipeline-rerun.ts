/**
 * Rerun of an ended pipeline from the client: its FAILED inputs run again from the stage where each
 * failed, as a new run of the same pipeline (same id, definition, endpoints and output location)
 * with a reference to the run it re-runs; the earlier stages' outputs are kept and read, not re-run.
 */
import { type Client } from '@temporalio/client';
import { PipelineWorkflowInput, pipelineWorkflowId, type PipelineState } from '../contracts';
import { outputStore } from '../results/batch/locations';
import { WORKFLOW_TYPES } from '../contracts/names/common';
import type { pipelineWorkflow } from '../workflows/pipeline/workflow';
import { endedRunOf, startInputOf, startRerun, type RerunRefuse } from './base';

/** Why a rerun was refused; `code` is stable, the message is for people. */
export type PipelineRerunRefusal = 'PIPELINE_NOT_FOUND' | 'PIPELINE_RUNNING' | 'NOTHING_TO_RERUN' | 'NO_OUTCOMES';

/** A rerun refused: nothing was started. */
export class PipelineRerunError extends Error {
  constructor(
    readonly code: PipelineRerunRefusal,
    readonly workflowId: string,
    message: string,
  ) {
    super(message);
    this.name = 'PipelineRerunError';
  }
}

/** A rerun just started. */
export interface PipelineRerun {
  workflowId: string;
  /** The new run's id and the first run id of the run it re-runs. */
  runId: string;
  previousRunId: string;
  /** The pipeline's attempt this run is: 2 for the first rerun. */
  attempt: number;
  /** FAILED inputs it re-runs, as the previous run's summary.json counts them. */
  inputs: number;
  outDir: string;
}

/** Starts a rerun of pipeline `id`'s FAILED inputs, or refuses with a {@link PipelineRerunError}. */
export async function rerunPipeline(client: Client, taskQueue: string, id: string): Promise<PipelineRerun> {
  const workflowId = pipelineWorkflowId(id);
  const refuse: RerunRefuse = (kind, message) =>
    new PipelineRerunError(kind === 'NO_OUTCOMES' ? kind : `PIPELINE_${kind}`, workflowId, message);
  const ended = await endedRunOf(client, workflowId, 'pipeline', refuse);
  // Every run of a pipeline carries the same input.
  const prev = await startInputOf<PipelineWorkflowInput>(client, workflowId);
  const summary = prev
    ? ((await outputStore(prev.outDir)
        .find('summary.json')
        .catch(() => undefined)) as PipelineState | undefined)
    : undefined;
  if (!prev || !summary)
    throw refuse(
      'NO_OUTCOMES',
      `${workflowId} ended ${ended.status} without writing its outcome files; there are no results to re-run from`,
    );
  const inputs = summary.counts.byStatus.FAILED ?? 0;
  if (inputs === 0)
    throw new PipelineRerunError('NOTHING_TO_RERUN', workflowId, `${workflowId} has no failed inputs to re-run`);
  const previousRunId = ended.runId;
  const attempt = (prev.rerunOf?.attempt ?? 1) + 1;
  const input = PipelineWorkflowInput.parse({ ...prev, rerunOf: { runId: previousRunId, attempt } });
  const runId = await startRerun<typeof pipelineWorkflow>(
    client,
    WORKFLOW_TYPES.pipeline,
    { taskQueue, workflowId, args: [input] },
    refuse,
  );
  return { workflowId, runId, previousRunId, attempt, inputs, outDir: input.outDir };
}
