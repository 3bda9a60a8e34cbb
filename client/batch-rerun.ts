/**
 * Rerun from the client: re-running the failed inputs of an ended batch. Checks the batch has ended
 * with inputs to re-run, then starts the batch workflow again under the same id with the previous
 * run's endpoint, source, outDir and options, and a reference to that run (never a list of indices).
 * ("retry" is a remote job attempted again; a batch's failed inputs are *rerun*. The workflow input
 * field is `retryOf` and the state's `retry`: names recorded in Temporal history, kept as they are.)
 */
import { type Client, type WorkflowHandle } from '@temporalio/client';
import { type BatchOptionsInput, type BatchState } from '../contracts';
import { BatchWorkflowInput } from '../contracts/batch';
import { BATCH_QUERIES, RETRIED_IF_CANCELLED, RETRIED_OUTCOMES, batchWorkflowId } from '../contracts/names/batch';
import { WORKFLOW_TYPES } from '../contracts/names/common';
import type { batchWorkflow } from '../workflows/batch/workflow';
import { endedRunOf, startInputOf, startRerun, type RerunRefuse } from './base';

/** Why a rerun was refused; `code` is stable, the message is for people. */
export type BatchRerunRefusal = 'BATCH_NOT_FOUND' | 'BATCH_RUNNING' | 'NOTHING_TO_RERUN' | 'NO_OUTCOMES';

/** A rerun refused: nothing was started. */
export class BatchRerunError extends Error {
  constructor(
    readonly code: BatchRerunRefusal,
    readonly workflowId: string,
    message: string,
  ) {
    super(message);
    this.name = 'BatchRerunError';
  }
}

/** Options of {@link rerunFailed}. */
export interface RerunFailedOptions {
  /**
   * Also re-run inputs that ended CANCELLED or NOT_SUBMITTED (cancelled batch, cost cap, deadline).
   * @default false
   */
  includeCancelled?: boolean;
  /**
   * Changes to the previous run's options for this run (concurrency, retry, maxCost, deadline...).
   * The previous `deadline` is not carried over; a per-job batch (`perJobWorkflows`) re-runs as new runs of its children.
   * @default {}
   */
  options?: BatchOptionsInput;
}

/** A rerun just started. */
export interface BatchRerun {
  workflowId: string;
  /** The new run's id and the id of the run it re-runs (first run ids of their chains). */
  runId: string;
  previousRunId: string;
  /** The batch's attempt this run is: 2 for the first rerun. */
  attempt: number;
  /** Inputs it re-runs, as the previous run's counts say (undefined when they could not be read). */
  inputs?: number;
  outDir: string;
}

type BatchHandle = WorkflowHandle<typeof batchWorkflow>;

/** The workflow input of the latest run of `workflowId` (continue-as-new passes it on unchanged). */
export const batchInputOf = (client: Client, workflowId: string): Promise<BatchWorkflowInput | undefined> =>
  startInputOf<BatchWorkflowInput>(client, workflowId);

/** Inputs of a batch state that a rerun re-runs. */
export function rerunnable(s: BatchState, includeCancelled = false): number {
  const by = s.counts.byStatus;
  return [...RETRIED_OUTCOMES, ...(includeCancelled ? RETRIED_IF_CANCELLED : [])].reduce(
    (n, st) => n + (by[st] ?? 0),
    0,
  );
}

/** A batch's refusal of a rerun: BATCH_NOT_FOUND, BATCH_RUNNING, NO_OUTCOMES. */
const refuseFor =
  (workflowId: string): RerunRefuse =>
  (kind, message) =>
    new BatchRerunError(kind === 'NO_OUTCOMES' ? kind : `BATCH_${kind}`, workflowId, message);

/** How many inputs the rerun takes (undefined when the counts cannot be read); none is a refusal. */
async function inputsToRerun(h: BatchHandle, status: string, includeCancelled = false): Promise<number | undefined> {
  // The counts: a completed run's result, else (cancelled) the query (a daemon answers it).
  const state =
    status === 'COMPLETED'
      ? await h.result().catch(() => undefined)
      : await h.query<BatchState>(BATCH_QUERIES.state).catch(() => undefined);
  const inputs = state ? rerunnable(state, includeCancelled) : undefined;
  if (inputs !== 0) return inputs;
  const others = state && !includeCancelled ? rerunnable(state, true) : 0;
  throw new BatchRerunError(
    'NOTHING_TO_RERUN',
    h.workflowId,
    `${h.workflowId} has no failed inputs to re-run${others > 0 ? ` (${others} cancelled or not submitted: --include-cancelled re-runs them)` : ''}`,
  );
}

/** The rerun's workflow input: the previous run's, its deadline dropped, `o.options` over its options. */
function rerunInput(
  prev: BatchWorkflowInput,
  previousRunId: string,
  attempt: number,
  o: RerunFailedOptions,
): BatchWorkflowInput {
  const { deadline: _previousDeadline, ...carried } = prev.options;
  return BatchWorkflowInput.parse({
    endpointId: prev.endpointId,
    source: prev.source,
    outDir: prev.outDir,
    options: {
      ...carried,
      ...o.options,
      retry: { ...carried.retry, ...o.options?.retry },
      polling: { ...carried.polling, ...o.options?.polling },
    },
    retryOf: { runId: previousRunId, attempt, includeCancelled: o.includeCancelled ?? false },
  });
}

/** Starts a rerun of batch `id`'s failed inputs, or refuses with a {@link BatchRerunError}. */
export async function rerunFailed(
  client: Client,
  taskQueue: string,
  id: string,
  o: RerunFailedOptions = {},
): Promise<BatchRerun> {
  const workflowId = batchWorkflowId(id);
  const h = client.workflow.getHandle<typeof batchWorkflow>(workflowId);
  const previous = await endedRunOf(client, workflowId, 'batch', refuseFor(workflowId));
  const prev = await batchInputOf(client, workflowId);
  if (!prev)
    throw new BatchRerunError('NO_OUTCOMES', workflowId, `${workflowId}: its input could not be read from history`);
  const inputs = await inputsToRerun(h, previous.status, o.includeCancelled);
  const attempt = (prev.retryOf?.attempt ?? 1) + 1;
  const input = rerunInput(prev, previous.runId, attempt, o);
  const runId = await startRerun<typeof batchWorkflow>(
    client,
    WORKFLOW_TYPES.batch,
    { taskQueue, workflowId, args: [input] },
    refuseFor(workflowId),
  );
  return {
    workflowId,
    runId,
    previousRunId: previous.runId,
    attempt,
    ...(inputs !== undefined ? { inputs } : {}),
    outDir: input.outDir,
  };
}
