/**
 * What both modes of a batch (bulk steps, per-job workflows) do alike at the start and the end: the
 * first run opens the batch (a retry-failed run selects its lines); at the end, one call writes what is left and
 * the outcome files, and the lines it found never submitted (or bad) join the counts.
 */
import { CancellationScope, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import { ACTIVITY_RETRY } from '../../contracts/retry-rule';
import type { BatchCounts, BatchWorkflowInput, RunScope } from '../../contracts';
import type { BatchActivities, FinishRequest, FinishResult } from '../../activities/batch/activities';
import { submitBlockers, type Controls } from './controls';

const finishing = proxyActivities<BatchActivities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '60 seconds',
  retry: ACTIVITY_RETRY,
});

/**
 * A small batch's finish runs as a local activity, in the workflow task that ends the batch (a
 * local activity does not heartbeat: the workflow task's own timeout and retry stand for it).
 */
const finishingHere = proxyLocalActivities<BatchActivities>({
  startToCloseTimeout: '10 minutes',
  retry: ACTIVITY_RETRY,
});

/**
 * Most inputs a batch may have for its finish to run locally (issue 23): then the workflow task
 * that schedules it also closes the batch (an activity's dispatch and a workflow task fewer after the
 * last completion, 20-40 ms of a 900-input batch's tail). A larger batch's merge (seconds) is a
 * heartbeating activity of its own.
 */
export const LOCAL_FINISH_MAX_INPUTS = 10_000;

/**
 * The first run of a batch opens it with `openBatch` (each mode's own activity options): the run's
 * size and price, then a retry-failed run's size: the failed lines it selects.
 */
export async function openRun(
  openBatch: BatchActivities['openBatch'],
  run: RunScope,
  input: BatchWorkflowInput,
  into: { total: number; pricePerHour?: number | undefined },
): Promise<void> {
  const o = input.options;
  const opened = await openBatch({
    endpointId: input.endpointId,
    source: input.source,
    ...(input.feed ? { feed: true } : {}),
    ...(o.pricePerHour !== undefined ? { pricePerHour: o.pricePerHour } : {}),
  });
  into.total = opened.total;
  into.pricePerHour = opened.pricePerHour;
  if (input.retryOf) into.total = await selectFailed(run, input.outDir, input.retryOf);
}

/** A retry-failed run: selects the failed lines of the batch it re-runs (kept for its reads); returns how many. */
async function selectFailed(
  run: RunScope,
  outDir: string,
  retryOf: NonNullable<BatchWorkflowInput['retryOf']>,
): Promise<number> {
  const { attempt, includeCancelled } = retryOf;
  return (await finishing.selectFailed({ run, outDir, attempt, includeCancelled })).selected;
}

/** Why the lines left were never submitted: the error of their NOT_SUBMITTED outcomes. */
export const unsentReason = (controls: Controls, spent: number, now: number): string =>
  controls.cancelling ? 'the batch was cancelled' : submitBlockers(controls, spent, now).join(', ') || 'not submitted';

/**
 * Finishes the batch (not cancellable); the lines the finish wrote NOT_SUBMITTED or BAD_INPUT join
 * `counts`. `local`: as a local activity ({@link LOCAL_FINISH_MAX_INPUTS}).
 */
export async function finishRun(req: FinishRequest, counts: BatchCounts, local = false): Promise<FinishResult> {
  const acts = local ? finishingHere : finishing;
  const fin = await CancellationScope.nonCancellable(() => acts.finishBatch(req));
  for (const [status, n] of [
    ['NOT_SUBMITTED', fin.notSubmitted],
    ['BAD_INPUT', fin.badInput],
  ] as const) {
    if (n > 0) counts.byStatus[status] = (counts.byStatus[status] ?? 0) + n;
  }
  counts.done += fin.notSubmitted + fin.badInput;
  return fin;
}
