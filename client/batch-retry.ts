/**
 * retry-failed from the client: check the batch has ended with inputs to re-run, then start the
 * batch workflow again under the same id with the previous run's endpoint, source, outDir and
 * options, and a reference to that run (never a list of indices).
 */
import {
  type Client,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
} from '@temporalio/client';
import {
  BatchWorkflowInput,
  RETRIED_IF_CANCELLED,
  RETRIED_OUTCOMES,
  batchWorkflowId,
  type BatchOptionsInput,
  type BatchState,
} from '../contracts';
import { batchStateQuery, batchWorkflow } from '../workflows/batch/workflow';

/** Why retry-failed refused; `code` is stable, the message is for people. */
export type BatchRetryRefusal = 'BATCH_NOT_FOUND' | 'BATCH_RUNNING' | 'NOTHING_TO_RETRY' | 'NO_OUTCOMES';

/** retry-failed refused: nothing was started. */
export class BatchRetryError extends Error {
  constructor(
    readonly code: BatchRetryRefusal,
    readonly workflowId: string,
    message: string,
  ) {
    super(message);
    this.name = 'BatchRetryError';
  }
}

/** Options of {@link retryFailed}. */
export interface RetryFailedOptions {
  /**
   * Also re-run inputs that ended CANCELLED or NOT_SUBMITTED (cancelled batch, cost cap, deadline).
   * @default false
   */
  includeCancelled?: boolean;
  /**
   * Changes to the previous run's options for this run (concurrency, retry, maxCost, deadline...).
   * The previous `deadline` is not carried over; a `perJobWorkflows` batch re-runs as new runs of its children.
   * @default {}
   */
  options?: BatchOptionsInput;
}

/** A retry-failed run just started. */
export interface BatchRetry {
  workflowId: string;
  /** The new run's id and the retried run's (first run ids of their chains). */
  runId: string;
  retriedRunId: string;
  /** The batch's attempt this run is: 2 for the first retry-failed. */
  attempt: number;
  /** Inputs it re-runs, as the retried run's counts say (undefined when they could not be read). */
  inputs?: number;
  outDir: string;
}

/** The workflow input of the latest run of `workflowId` (continue-as-new passes it on unchanged). */
export async function batchInputOf(client: Client, workflowId: string): Promise<BatchWorkflowInput | undefined> {
  const first = (await client.workflow.getHandle(workflowId).fetchHistory()).events?.[0];
  const data = first?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
  return data ? (JSON.parse(Buffer.from(data).toString()) as BatchWorkflowInput) : undefined;
}

/** Inputs of a batch state that retry-failed re-runs. */
export function retriable(s: BatchState, includeCancelled = false): number {
  const by = s.counts.byStatus;
  return [...RETRIED_OUTCOMES, ...(includeCancelled ? RETRIED_IF_CANCELLED : [])].reduce(
    (n, st) => n + (by[st] ?? 0),
    0,
  );
}

/** Starts a retry-failed run of batch `id`, or refuses with a {@link BatchRetryError}. */
export async function retryFailed(
  client: Client,
  taskQueue: string,
  id: string,
  o: RetryFailedOptions = {},
): Promise<BatchRetry> {
  const workflowId = batchWorkflowId(id);
  const h = client.workflow.getHandle<typeof batchWorkflow>(workflowId);
  const d = await h.describe().catch((err: unknown) => {
    if (err instanceof WorkflowNotFoundError)
      throw new BatchRetryError('BATCH_NOT_FOUND', workflowId, `no batch ${workflowId}`);
    throw err;
  });
  const status = d.status.name;
  if (status === 'RUNNING')
    throw new BatchRetryError(
      'BATCH_RUNNING',
      workflowId,
      `${workflowId} is still running; retry-failed re-runs failed inputs once it has ended`,
    );
  if (status !== 'COMPLETED' && status !== 'CANCELLED') {
    throw new BatchRetryError(
      'NO_OUTCOMES',
      workflowId,
      `${workflowId} ended ${status} without writing its outcome files; there are no results to retry from`,
    );
  }
  const prev = await batchInputOf(client, workflowId);
  if (!prev)
    throw new BatchRetryError('NO_OUTCOMES', workflowId, `${workflowId}: its input could not be read from history`);
  // The counts: a completed run's result, else (cancelled) the query (a daemon answers it).
  const state =
    status === 'COMPLETED'
      ? await h.result().catch(() => undefined)
      : await h.query(batchStateQuery).catch(() => undefined);
  const inputs = state ? retriable(state, o.includeCancelled) : undefined;
  if (inputs === 0) {
    const others = state && !o.includeCancelled ? retriable(state, true) : 0;
    throw new BatchRetryError(
      'NOTHING_TO_RETRY',
      workflowId,
      `${workflowId} has no failed inputs to retry${others > 0 ? ` (${others} cancelled or not submitted: --include-cancelled re-runs them)` : ''}`,
    );
  }
  const { deadline: _previousDeadline, ...carried } = prev.options;
  const attempt = (prev.retryOf?.attempt ?? 1) + 1;
  const retriedRunId = d.raw.workflowExecutionInfo?.firstRunId || d.runId;
  const input = BatchWorkflowInput.parse({
    endpointId: prev.endpointId,
    source: prev.source,
    outDir: prev.outDir,
    options: {
      ...carried,
      ...o.options,
      retry: { ...carried.retry, ...o.options?.retry },
      polling: { ...carried.polling, ...o.options?.polling },
    },
    retryOf: { runId: retriedRunId, attempt, includeCancelled: o.includeCancelled ?? false },
  });
  // The same id once the previous run is closed; a run started meanwhile makes this fail.
  const started = await client.workflow
    .start(batchWorkflow, {
      taskQueue,
      workflowId,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    })
    .catch((err: unknown) => {
      if (err instanceof WorkflowExecutionAlreadyStartedError)
        throw new BatchRetryError(
          'BATCH_RUNNING',
          workflowId,
          `${workflowId} is running again (started meanwhile); retry-failed waits for it to end`,
        );
      throw err;
    });
  return {
    workflowId,
    runId: started.firstExecutionRunId,
    retriedRunId,
    attempt,
    ...(inputs !== undefined ? { inputs } : {}),
    outDir: input.outDir,
  };
}
