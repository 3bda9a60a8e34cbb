/** `runBatch`: a JSONL file of jobs, durably, as a child batch workflow of a user's workflow (sluice/workflows). */
import type { BatchState, BatchWorkflowInputInit } from '../../contracts/batch';
import { runChild, type RunOptions } from './run-child';

/**
 * What `runBatch` takes: the library's batch input (`sluice.batch.start`), options given their
 * defaults by the daemon. `source` and `outDir` are absolute paths or `s3://` URLs the daemon
 * reaches (a workflow has no working directory).
 */
export type RunBatchInput = Omit<BatchWorkflowInputInit, 'retryOf'>;

/**
 * Runs a batch through sluice's batch workflow, as the child `batch/<this workflow's id>/<key>`
 * (`sluice batch status` and the console show it under that id), and resolves with its final
 * state once every input has its outcome: counts by status, spend, and `outDir`, where
 * results.jsonl, dead-letter.jsonl and summary.json are. Per-input results never enter this
 * workflow's history: read them in an activity (`sluice.batch.results(...)`, the library).
 * Rejects with Temporal's ChildWorkflowFailure when the batch is cancelled (cancelling this
 * workflow cancels it: its jobs in flight are cancelled, its outcome files still written) or fails
 * (an input file missing, an endpoint unknown, an input refused: INVALID_INPUT).
 */
export async function runBatch(key: string, input: RunBatchInput, options?: RunOptions): Promise<BatchState> {
  return runChild<BatchState>('batch', key, input, options);
}
