/**
 * A batch of jobs, durably: a loop of bulk steps (activities) over a sliding window, with only
 * cursors, counters and the window in history; pause, resume, live configuration and cancel;
 * continue-as-new without losing a message; the outcome files at the end. The `--per-job-workflows`
 * mode is per-job.ts; the run's data are bulk-run.ts, its state query state.ts.
 */
import {
  CancellationScope,
  CancelledFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { ACTIVITY_RETRY, STEP_RETRY } from '../../contracts/retry-rule';
import { BATCH_PATCHES } from '../../contracts/names';
import type { BatchConfigure, BatchState, BatchWorkflowInput, RunScope } from '../../contracts';
import type { BatchActivities } from '../../activities/batch/activities';
import { abandonWaiting, holding, syncCounts } from './ledger';
import { applyStep } from './ledger-step';
import { bulkRun, bulkSpend, carryOf, feedOpen, feedTo, type BatchCarry, type BulkRun } from './bulk-run';
import { bulkState } from './state';
import { configure, submitBlockers } from './controls';
import { LOCAL_FINISH_MAX_INPUTS, finishRun, openRun, unsentReason } from './finish';
import { planStep, writableAtFinish, type StepPlan } from './plan';
import { perJobBatch } from './per-job';
import { batchStateQuery, configureUpdate, feedSignal, pauseUpdate, resumeUpdate } from './messages';

export { batchStateQuery, configureUpdate, feedSignal, pauseUpdate, resumeUpdate } from './messages';
export type { BatchCarry } from './bulk-run';

const acts = proxyActivities<BatchActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '5 seconds',
  retry: ACTIVITY_RETRY,
});

// A step heartbeats every second whatever it does (activities/heartbeat.ts keepBeating), so a
// dead daemon's step moves to another within 3 s, retried 200 ms later (was 10 s, then 5 s, and 1 s:
// the kills' cost, issue 19). A change of the timeouts or the retry policy alone changes no command
// of the history (replayed as before).
const steps = proxyActivities<BatchActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '3 seconds',
  retry: STEP_RETRY,
});

/** Bytes of step inputs and results one run may hold before it continues as new. */
const HISTORY_BUDGET_BYTES = 1_500_000;

export async function batchWorkflow(input: BatchWorkflowInput, carry?: BatchCarry): Promise<BatchState> {
  // Each input its own child job workflow (workflows/batch/per-job.ts); batches recorded before it never take this branch.
  if (input.options.perJobWorkflows) return perJobBatch(input, carry);
  const { workflowId, firstExecutionRunId: runId } = workflowInfo();
  const run = { workflowId, runId };
  const r = bulkRun(input, workflowId, carry);
  const cancel = handleMessages(r);

  await CancellationScope.nonCancellable(async () => {
    // A file's first step opens it (runs recorded before it, feeds and retry-failed runs open it first).
    if (!carry && !input.feed && !input.retryOf && patched(BATCH_PATCHES.openInStep)) r.opening = true;
    else if (!carry) await openRun(acts.openBatch, run, input, r);
    await stepLoop(r, run);
  });

  // The end: retries not yet due are given up (the batch stopped), the rest is written.
  await finish(r, run);
  if (cancel.requested) throw new CancelledFailure('batch cancelled');
  return bulkState(r, Date.now());
}

/** The query, the updates, and the workflow's cancellation (it cancels the batch: steps run on, outcomes are written). */
function handleMessages(r: BulkRun): { requested: boolean } {
  const state = () => bulkState(r, Date.now());
  setHandler(batchStateQuery, state);
  /** Resolves once the step running now (planned under the old controls) has ended. */
  const stepEnded = async (): Promise<void> => {
    const running = r.stepping ? r.ledger.seq : -1;
    await condition(() => !r.stepping || r.ledger.seq > running);
  };
  setHandler(pauseUpdate, async () => {
    r.controls.paused = true;
    // The step running now may still submit; every step planned from here on does not.
    await stepEnded();
    return state();
  });
  setHandler(resumeUpdate, () => {
    r.controls.paused = false;
    return state();
  });
  setHandler(configureUpdate, async (c: BatchConfigure) => {
    configure(r.controls, c);
    // Answers once the new settings govern every submission.
    await stepEnded();
    return state();
  });
  setHandler(feedSignal, (f) => feedTo(r, f));
  const cancel = { requested: false };
  CancellationScope.current().cancelRequested.catch(() => {
    cancel.requested = true;
    r.controls.cancelling = true;
  });
  return cancel;
}

/** Steps until nothing is left to submit, in flight or to write (or continues as new past the run's budget). */
async function stepLoop(r: BulkRun, run: RunScope): Promise<void> {
  const { ledger, controls } = r;
  const o = r.input.options;
  let steps = 0;
  let historyBytes = 0;
  // Runs recorded before it keep waiting for every submission at a step's end (patched() is false on their replay).
  const detach = patched(BATCH_PATCHES.detachedSubmissions);
  // Runs recorded before it match a completion of any run of a job by its id.
  const exact = patched(BATCH_PATCHES.staleCompletions);
  // Runs recorded before it refill the window while retries wait for room.
  const retriesFirst = patched(BATCH_PATCHES.retriesFirst);
  for (;;) {
    const now = Date.now();
    // An open feed (a pipeline's stage): its lines so far are the input; more may come.
    const open = feedOpen(r);
    const canSubmit = !controls.cancelling && submitBlockers(controls, bulkSpend(r), now).length === 0;
    const inputLeft = !ledger.eof || ledger.deferred.length > 0 || ledger.waiting.length > 0;
    const moreToSubmit = canSubmit && inputLeft;
    if (!moreToSubmit && holding(ledger) === 0 && ledger.finals.length > 0 && writableAtFinish(ledger)) {
      // Nothing left but outcomes to write: the finish writes them (runs recorded before it wrote them in a step first).
      const ends = !open && (!controls.paused || controls.cancelling || !inputLeft);
      if (ends && patched(BATCH_PATCHES.finishWrites)) return;
    }
    if (!moreToSubmit && holding(ledger) === 0 && ledger.finals.length === 0) {
      // A closed feed whose rows left may not be submitted (a stop, a deadline, a cost cap) ends as a file does.
      const stoppedFeed = !canSubmit && r.feed?.closed === true && patched(BATCH_PATCHES.closedFeedStops);
      if (open && !controls.cancelling && !stoppedFeed) {
        // Caught up with the feed: wait for it to grow or close (or for a control).
        const before = JSON.stringify([r.feed, controls]);
        r.waiting = controls.paused ? ['paused'] : ['feed'];
        await condition(() => JSON.stringify([r.feed, controls]) !== before);
        continue;
      }
      if (!controls.paused || controls.cancelling || !inputLeft) return;
      // Paused with nothing in flight: wait for a message instead of stepping.
      r.waiting = ['paused'];
      await condition(() => !controls.paused || controls.cancelling);
      continue;
    }
    // History pages are read whole (gRPC messages up to 4 MB): a run's steps stay well below that.
    if (steps >= o.stepsPerRun || historyBytes > HISTORY_BUDGET_BYTES || workflowInfo().continueAsNewSuggested) {
      if (!controls.cancelling) {
        await condition(allHandlersFinished);
        await continueAsNew<typeof batchWorkflow>(r.input, carryOf(r));
      }
    }
    // Runs recorded before it refill only before the feed's known end (patched() is false on their replay).
    const feedRefill = r.feed !== undefined && !r.feed.closed && patched(BATCH_PATCHES.feedRefill);
    const { plan, waiting: why } = planStep(ledger, r.input, controls, bulkSpend(r), now, feedRefill, retriesFirst);
    r.waiting = [...why, ...r.held];
    const idle =
      !plan.read &&
      plan.write.length + plan.submit.length + plan.retry.length + plan.cancel.length + plan.poll.length === 0;
    if (idle && holding(ledger) === 0) {
      // Only retries waiting for their backoff: sleep until the first is due (or a message comes).
      const next = Math.min(...ledger.waiting.map((w) => w.at), controls.deadline ?? Infinity);
      const before = JSON.stringify(controls);
      await condition(() => JSON.stringify(controls) !== before, Math.max(1, Math.min(next - now, 3_600_000)));
      continue;
    }
    historyBytes += await step(r, run, detach ? { ...plan, dt: true } : plan, exact);
    steps++;
  }
}

/** Runs one planned step and applies its result to the ledger; returns the bytes it added to history. */
async function step(r: BulkRun, run: RunScope, plan: StepPlan & { dt?: boolean }, exact: boolean): Promise<number> {
  const { input, ledger } = r;
  const o = input.options;
  const seq = ledger.seq++;
  r.stepping = true;
  try {
    const res = await steps.batchStep({
      run,
      seq,
      endpointId: input.endpointId,
      source: input.source,
      inputFormat: o.inputFormat,
      webhook: o.completion === 'webhook',
      ...(r.opening ? { open: o.pricePerHour !== undefined ? { pricePerHour: o.pricePerHour } : {} } : {}),
      ...(r.pricePerHour === undefined && !r.opening ? { wantPrice: true } : {}),
      ...(input.retryOf ? { subset: true } : {}),
      ...(o.policy ? { policy: o.policy } : {}),
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...plan,
    });
    ledger.finals.splice(0, plan.write.length);
    const bytes = JSON.stringify(plan).length + JSON.stringify(res).length;
    if (res.opened) {
      r.total = res.opened.total;
      if (res.opened.pricePerHour !== undefined) r.pricePerHour = res.opened.pricePerHour;
      r.opening = false;
    }
    if (r.pricePerHour === undefined && res.pricePerHour !== undefined) r.pricePerHour = res.pricePerHour;
    applyStep(ledger, res, Date.now(), o, seq, exact);
    r.held = res.held ?? [];
    return bytes;
  } finally {
    r.stepping = false;
  }
}

/** Gives up retries not yet due and writes the rest and the outcome files (not cancellable). */
async function finish(r: BulkRun, run: RunScope): Promise<void> {
  const { input, ledger } = r;
  const o = input.options;
  r.phase = 'finishing';
  abandonWaiting(ledger, Date.now());
  syncCounts(ledger);
  const reason = unsentReason(r.controls, bulkSpend(r), Date.now());
  // A small batch finishes in the workflow task that closes it (runs recorded before it, and a retry-failed
  // run, whose finish merges every input of the batch: an activity of its own).
  const local = !input.retryOf && r.total <= LOCAL_FINISH_MAX_INPUTS && patched(BATCH_PATCHES.finishLocal);
  const fin = await finishRun(
    {
      run,
      seq: ledger.seq++,
      source: input.source,
      inputFormat: o.inputFormat,
      ...(o.policy ? { policy: o.policy } : {}),
      outDir: input.outDir,
      write: ledger.finals,
      deferred: ledger.deferred,
      cursor: ledger.cursor,
      eof: ledger.eof,
      reason,
      state: { ...bulkState(r, Date.now()), phase: 'done', endedAt: Date.now() },
      ...(input.retryOf ? { retry: { attempt: input.retryOf.attempt } } : {}),
    },
    ledger.counts,
    local,
  );
  ledger.finals = [];
  ledger.deferred = [];
  if (fin.overall) r.overall = fin.overall;
  r.phase = 'done';
  r.endedAt = Date.now();
  r.waiting = [];
}
