/**
 * A batch of jobs, durably: a loop of bulk steps (activities) over a sliding window, with only
 * cursors, counters and the window in history; pause, resume, live configuration and cancel;
 * continue-as-new without losing a message; the outcome files at the end.
 */
import {
  CancellationScope,
  CancelledFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { NON_RETRYABLE } from '../../contracts/names';
import type { BatchConfigure, BatchState, BatchWorkflowInput, WaitReason } from '../../contracts';
import type { BatchActivities } from '../../activities/batch/activities';
import { abandonWaiting, applyStep, newLedger, syncCounts, type LedgerData } from './ledger';
import { finishRun, selectFailed, unsentReason } from './finish';
import { planStep, submitBlockers, type Controls } from './plan';
import { perJobBatch } from './per-job';
import { batchStateQuery, configureUpdate, pauseUpdate, resumeUpdate } from './messages';

export { batchStateQuery, configureUpdate, pauseUpdate, resumeUpdate } from './messages';

/** What a batch carries into its next run (continue-as-new). */
export interface BatchCarry {
  ledger: LedgerData;
  controls: Controls;
  startedAt: number;
  runs: number;
  total: number;
  pricePerHour?: number;
}

// A step heartbeats at least every 5 s (per line while submitting, on a timer while it waits), so a
// dead daemon's step moves to another within 10 s.
const acts = proxyActivities<BatchActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '30s',
    nonRetryableErrorTypes: [...NON_RETRYABLE],
  },
});

/** Bytes of step inputs and results one run may hold before it continues as new. */
const HISTORY_BUDGET_BYTES = 1_500_000;

export async function batchWorkflow(input: BatchWorkflowInput, carry?: BatchCarry): Promise<BatchState> {
  // Each input its own child job workflow (workflows/batch/per-job.ts); batches recorded before it never take this branch.
  if (input.options.perJobWorkflows) return perJobBatch(input, carry);
  const o = input.options;
  const { workflowId, firstExecutionRunId: runId } = workflowInfo();
  const run = { workflowId, runId };
  const ledger = carry?.ledger ?? newLedger();
  const controls: Controls = carry?.controls ?? {
    paused: false,
    cancelling: false,
    concurrency: o.concurrency,
    ...(o.keyLimit !== undefined ? { keyLimit: o.keyLimit } : {}),
    ...(o.maxCost !== undefined ? { maxCost: o.maxCost } : {}),
    ...(o.deadline !== undefined ? { deadline: o.deadline } : {}),
  };
  const startedAt = carry?.startedAt ?? Date.now();
  const runs = (carry?.runs ?? 0) + 1;
  let total = carry?.total ?? 0;
  let pricePerHour = carry?.pricePerHour ?? o.pricePerHour;
  let phase: BatchState['phase'] = 'running';
  let waiting: WaitReason[] = [];
  /** What held the last step back (the endpoint's rate budget, a higher-priority batch). */
  let held: WaitReason[] = [];
  let stepping = false;
  const end: { at?: number } = {};
  // A retry-failed run, once done: the counts over every input of the batch.
  const retried: { overall?: { total: number; byStatus: BatchState['counts']['byStatus'] } } = {};

  const spend = (): number => (pricePerHour !== undefined ? (ledger.execMs / 3_600_000) * pricePerHour : 0);
  const state = (): BatchState => {
    const now = Date.now();
    const secs = Math.max(1, (now - startedAt) / 1000);
    const completeRate = ledger.counts.done / secs;
    const left = total - ledger.counts.done;
    const s: BatchState = {
      batchId: workflowId.replace(/^batch\//, ''),
      endpointId: input.endpointId,
      phase:
        controls.cancelling && phase === 'running'
          ? 'cancelling'
          : controls.paused && phase === 'running'
            ? 'paused'
            : phase,
      counts: retried.overall
        ? {
            ...ledger.counts,
            total: retried.overall.total,
            done: retried.overall.total,
            byStatus: retried.overall.byStatus,
          }
        : { ...ledger.counts, total },
      waiting,
      spend: spend(),
      submitRate: ledger.counts.submitted / secs,
      completeRate,
      startedAt,
      lastErrors: ledger.lastErrors,
      runs,
      outDir: input.outDir,
      options: {
        concurrency: controls.concurrency,
        ...(controls.keyLimit !== undefined ? { keyLimit: controls.keyLimit } : {}),
        ...(controls.maxCost !== undefined ? { maxCost: controls.maxCost } : {}),
        ...(controls.deadline !== undefined ? { deadline: controls.deadline } : {}),
      },
    };
    if (pricePerHour !== undefined) s.pricePerHour = pricePerHour;
    if (input.retryOf)
      s.retry = {
        attempt: input.retryOf.attempt,
        of: input.retryOf.runId,
        inputs: total,
        byStatus: ledger.counts.byStatus,
      };
    if (completeRate > 0 && left > 0 && phase === 'running') s.eta = now + (left / completeRate) * 1000;
    // The mean over the executions whose time the service reported (a ledger carried from an older run: over the outcomes).
    if (ledger.execN) s.avgExecutionMs = ledger.execMs / ledger.execN;
    else if (ledger.counts.done > 0 && ledger.execMs > 0)
      s.avgExecutionMs = ledger.execMs / Math.max(1, ledger.counts.done - (ledger.counts.byStatus.BAD_INPUT ?? 0));
    if (end.at !== undefined) s.endedAt = end.at;
    return s;
  };
  setHandler(batchStateQuery, state);
  /** Resolves once the step running now (planned under the old controls) has ended. */
  const stepEnded = async (): Promise<void> => {
    const running = stepping ? ledger.seq : -1;
    await condition(() => !stepping || ledger.seq > running);
  };
  setHandler(pauseUpdate, async () => {
    controls.paused = true;
    // The step running now may still submit; every step planned from here on does not.
    await stepEnded();
    return state();
  });
  setHandler(resumeUpdate, () => {
    controls.paused = false;
    return state();
  });
  setHandler(configureUpdate, async (c: BatchConfigure) => {
    if (c.concurrency !== undefined) controls.concurrency = c.concurrency;
    if (c.keyLimit !== undefined) controls.keyLimit = c.keyLimit;
    if (c.maxCost === null) delete controls.maxCost;
    else if (c.maxCost !== undefined) controls.maxCost = c.maxCost;
    if (c.deadline === null) delete controls.deadline;
    else if (c.deadline !== undefined) controls.deadline = c.deadline;
    // Answers once the new settings govern every submission.
    await stepEnded();
    return state();
  });
  // Cancelling the workflow cancels the batch: steps run on (in flight jobs are cancelled, outcomes written).
  let cancelRequested = false;
  CancellationScope.current().cancelRequested.catch(() => {
    cancelRequested = true;
    controls.cancelling = true;
  });

  await CancellationScope.nonCancellable(async () => {
    if (!carry) {
      const opened = await acts.openBatch({
        endpointId: input.endpointId,
        source: input.source,
        ...(o.pricePerHour !== undefined ? { pricePerHour: o.pricePerHour } : {}),
      });
      total = opened.total;
      pricePerHour = opened.pricePerHour;
      if (input.retryOf) total = await selectFailed(run, input.outDir, input.retryOf);
    }
    let steps = 0;
    let historyBytes = 0;
    for (;;) {
      const now = Date.now();
      const canSubmit = !controls.cancelling && submitBlockers(controls, spend(), now).length === 0;
      const moreToSubmit = canSubmit && (!ledger.eof || ledger.deferred.length > 0 || ledger.waiting.length > 0);
      if (!moreToSubmit && ledger.inFlight.length === 0 && ledger.finals.length === 0) {
        if (
          !controls.paused ||
          controls.cancelling ||
          (ledger.eof && ledger.deferred.length === 0 && ledger.waiting.length === 0)
        )
          break;
        // Paused with nothing in flight: wait for a message instead of stepping.
        waiting = ['paused'];
        await condition(() => !controls.paused || controls.cancelling);
        continue;
      }
      // History pages are read whole (gRPC messages up to 4 MB): a run's steps stay well below that.
      if (steps >= o.stepsPerRun || historyBytes > HISTORY_BUDGET_BYTES || workflowInfo().continueAsNewSuggested) {
        if (!controls.cancelling) {
          await condition(allHandlersFinished);
          const next: BatchCarry = {
            ledger,
            controls,
            startedAt,
            runs,
            total,
            ...(pricePerHour !== undefined ? { pricePerHour } : {}),
          };
          return continueAsNew<typeof batchWorkflow>(input, next);
        }
      }
      const { plan, waiting: why } = planStep(ledger, input, controls, spend(), now);
      waiting = [...why, ...held];
      const idle =
        !plan.read &&
        plan.write.length + plan.submit.length + plan.retry.length + plan.cancel.length + plan.poll.length === 0;
      if (idle && ledger.inFlight.length === 0) {
        // Only retries waiting for their backoff: sleep until the first is due (or a message comes).
        const next = Math.min(...ledger.waiting.map((w) => w.at), controls.deadline ?? Infinity);
        const before = JSON.stringify(controls);
        await condition(() => JSON.stringify(controls) !== before, Math.max(1, Math.min(next - now, 3_600_000)));
        continue;
      }
      const seq = ledger.seq++;
      stepping = true;
      try {
        const res = await acts.batchStep({
          run,
          seq,
          endpointId: input.endpointId,
          source: input.source,
          inputFormat: o.inputFormat,
          webhook: o.completion === 'webhook',
          ...(pricePerHour === undefined ? { wantPrice: true } : {}),
          ...(input.retryOf ? { subset: true } : {}),
          ...(o.policy ? { policy: o.policy } : {}),
          ...(o.priority !== undefined ? { priority: o.priority } : {}),
          ...plan,
        });
        ledger.finals.splice(0, plan.write.length);
        historyBytes += JSON.stringify(plan).length + JSON.stringify(res).length;
        if (pricePerHour === undefined && res.pricePerHour !== undefined) pricePerHour = res.pricePerHour;
        applyStep(ledger, res, Date.now(), o, seq);
        held = res.held ?? [];
      } finally {
        stepping = false;
      }
      steps++;
    }
  });

  // The end: retries not yet due are given up (the batch stopped), the rest is written.
  phase = 'finishing';
  abandonWaiting(ledger, Date.now());
  syncCounts(ledger);
  const reason = unsentReason(controls, spend(), Date.now());
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
      state: { ...state(), phase: 'done', endedAt: Date.now() },
      ...(input.retryOf ? { retry: { attempt: input.retryOf.attempt } } : {}),
    },
    ledger.counts,
  );
  ledger.finals = [];
  ledger.deferred = [];
  if (fin.overall) retried.overall = fin.overall;
  phase = 'done';
  end.at = Date.now();
  waiting = [];
  if (cancelRequested) throw new CancelledFailure('batch cancelled');
  return state();
}
