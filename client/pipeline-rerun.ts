/**
 * Rerun of an ended pipeline from the client: its FAILED inputs run again from the stage where each
 * failed, as a new run of the same pipeline (same id, definition, endpoints and output location)
 * with a reference to the run it re-runs; the earlier stages' outputs are kept and read, not re-run.
 */
import {
  type Client,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { PipelineWorkflowInput, pipelineWorkflowId, type PipelineState } from '../contracts';
import { outputStore } from '../results/batch/locations';
import { pipelineWorkflow } from '../workflows/pipeline/workflow';

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

/** The workflow input of the latest run of `workflowId` (every run of it carries the same). */
async function inputOf(client: Client, workflowId: string): Promise<PipelineWorkflowInput | undefined> {
  const first = (await client.workflow.getHandle(workflowId).fetchHistory()).events?.[0];
  const data = first?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
  return data ? (JSON.parse(Buffer.from(data).toString()) as PipelineWorkflowInput) : undefined;
}

/** Starts a rerun of pipeline `id`'s FAILED inputs, or refuses with a {@link PipelineRerunError}. */
export async function rerunPipeline(client: Client, taskQueue: string, id: string): Promise<PipelineRerun> {
  const workflowId = pipelineWorkflowId(id);
  const d = await client.workflow
    .getHandle(workflowId)
    .describe()
    .catch((err: unknown) => {
      if (err instanceof WorkflowNotFoundError)
        throw new PipelineRerunError('PIPELINE_NOT_FOUND', workflowId, `no pipeline ${workflowId}`);
      throw err;
    });
  const status = d.status.name;
  if (status === 'RUNNING')
    throw new PipelineRerunError(
      'PIPELINE_RUNNING',
      workflowId,
      `${workflowId} is still running; rerun re-runs failed inputs once it has ended`,
    );
  const prev = await inputOf(client, workflowId);
  const summary = prev
    ? ((await outputStore(prev.outDir)
        .find('summary.json')
        .catch(() => undefined)) as PipelineState | undefined)
    : undefined;
  if (!prev || !summary || (status !== 'COMPLETED' && status !== 'CANCELLED'))
    throw new PipelineRerunError(
      'NO_OUTCOMES',
      workflowId,
      `${workflowId} ended ${status} without writing its outcome files; there are no results to re-run from`,
    );
  const inputs = summary.counts.byStatus.FAILED ?? 0;
  if (inputs === 0)
    throw new PipelineRerunError('NOTHING_TO_RERUN', workflowId, `${workflowId} has no failed inputs to re-run`);
  const previousRunId = d.raw.workflowExecutionInfo?.firstRunId || d.runId;
  const attempt = (prev.rerunOf?.attempt ?? 1) + 1;
  const input = PipelineWorkflowInput.parse({ ...prev, rerunOf: { runId: previousRunId, attempt } });
  const started = await client.workflow
    .start(pipelineWorkflow, {
      taskQueue,
      workflowId,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    })
    .catch((err: unknown) => {
      if (err instanceof WorkflowExecutionAlreadyStartedError)
        throw new PipelineRerunError(
          'PIPELINE_RUNNING',
          workflowId,
          `${workflowId} is running again (started meanwhile)`,
        );
      throw err;
    });
  return { workflowId, runId: started.firstExecutionRunId, previousRunId, attempt, inputs, outDir: input.outDir };
}
