/**
 * A pipeline's stages as child batch workflows: started on their (empty, open) feeds, told how far
 * each feed goes and when it is closed (the `batchFeed` signal), and cancelled with the pipeline.
 */
import { ParentClosePolicy, getExternalWorkflowHandle, log, startChild } from '@temporalio/workflow';
import { stageBatchId } from '../../contracts/names';
import type { BatchWorkflowInput } from '../../contracts';
import { batchWorkflow, feedSignal } from '../batch/workflow';
import { COST_CAP, stageDrained, type PipelineRun, type StageRun } from './run';

/** Starts each stage's batch. Abandoned on close: the pipeline ends its stages itself (closing their feeds, or cancelling them). */
export async function startStages(r: PipelineRun, inputs: BatchWorkflowInput[]): Promise<void> {
  for (const [k, input] of inputs.entries()) {
    const child = await startChild(batchWorkflow, {
      workflowId: stageBatchId(r.workflowId, r.input.definition.stages[k]!.name),
      args: [input],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
    r.stages.push({
      run: { workflowId: child.workflowId, runId: child.firstExecutionRunId },
      feed: { line: 0, offset: 0 },
      fed: 0,
      active: 0,
      closed: false,
    });
  }
}

/** Tells a stage's batch how far its feed goes, and to submit no more once the pipeline's cost cap is reached. */
export async function feedStage(r: PipelineRun, s: StageRun): Promise<void> {
  await getExternalWorkflowHandle(s.run.workflowId).signal(feedSignal, {
    lines: s.feed.line,
    bytes: s.feed.offset,
    closed: s.closed,
    ...(r.stopped === COST_CAP ? { stop: COST_CAP } : {}),
  });
}

/** Closes the feed of every stage no input can enter any more (its batch ends once it has every outcome). */
export async function closeDrained(r: PipelineRun): Promise<void> {
  await Promise.all(
    r.stages.map(async (s, k) => {
      if (s.closed || !stageDrained(r, k)) return;
      s.closed = true;
      await feedStage(r, s);
    }),
  );
}

/** Each stage's batch cancels its jobs in flight and writes every row it holds as its outcome. */
export async function cancelStages(r: PipelineRun): Promise<void> {
  await Promise.all(
    r.stages.map((s) =>
      getExternalWorkflowHandle(s.run.workflowId)
        .cancel()
        // A stage whose batch has already ended: nothing to cancel.
        .catch((err: unknown) =>
          log.info('pipeline: stage not cancelled', { stage: s.run.workflowId, err: String(err) }),
        ),
    ),
  );
}
