/**
 * A batch in the `--per-job-workflows` mode: a sliding window of child job workflows
 * (`batch/<id>/<index>`), each reading its own input line; the same controls, outcome files and
 * state query as the bulk mode. Only positions, counters and small summaries enter history.
 */
import {
  CancellationScope,
  CancelledFailure,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { NON_RETRYABLE, batchChildId } from '../../contracts/names';
import type { BatchConfigure, BatchState, BatchWorkflowInput, WaitReason } from '../../contracts';
import type { BatchActivities } from '../../activities/batch/activities';
import type { LineRef } from '../../activities/batch/types';
import { finishRun, selectFailed, unsentReason } from './finish';
import { submitBlockers } from './plan';
import { LoopTimers } from './per-job-timers';
import {
  childInput,
  childState,
  configure,
  finalOfFailure,
  finalOfResult,
  finalize,
  initialControls,
  newChildLedger,
  pickStarts,
  waitingOf,
  windowOf,
  type ChildrenCarry,
  type Running,
} from './per-job-ledger';
import { jobWorkflow } from '../job';
import { batchStateQuery, configureUpdate, pauseUpdate, resumeUpdate } from './messages';

const acts = proxyActivities<BatchActivities>({
  startToCloseTimeout: '10 minutes',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '30s',
    nonRetryableErrorTypes: [...NON_RETRYABLE],
  },
});

/** Outcomes written together at most, and at least this often while children finish. */
const FLUSH_AT = 500;
const FLUSH_MS = 5000;
/** Lines read per page, and read ahead at most (lines waiting for room or for their key). */
const PAGE = 500;
const MAX_PENDING = 1000;

type Sig = (input: BatchWorkflowInput, carry?: ChildrenCarry) => Promise<BatchState>;

export async function perJobBatch(input: BatchWorkflowInput, carried?: object): Promise<BatchState> {
  const carry = carried as ChildrenCarry | undefined;
  const o = input.options;
  const { workflowId, firstExecutionRunId: runId } = workflowInfo();
  const run = { workflowId, runId };
  const d = carry?.children ?? newChildLedger();
  const controls = carry?.controls ?? initialControls(o);
  const startedAt = carry?.startedAt ?? Date.now();
  const runs = (carry?.runs ?? 0) + 1;
  let total = carry?.total ?? 0;
  let pricePerHour = carry?.pricePerHour ?? o.pricePerHour;
  let phase: BatchState['phase'] = 'running';
  let waiting: WaitReason[] = [];
  const end: { at?: number } = {};
  // A retry-failed run, once done: the counts over every input of the batch.
  const retried: { overall?: { total: number; byStatus: BatchState['counts']['byStatus'] } } = {};
  const running = new Map<number, Running & { scope: CancellationScope; cancelled?: boolean }>();
  // Bumped by everything the loop waits for: a child's end, a message, a timer.
  let events = 0;
  const timers = new LoopTimers(FLUSH_MS, () => events++);

  const spend = (): number => (pricePerHour !== undefined ? (d.execMs / 3_600_000) * pricePerHour : 0);
  const state = (): BatchState =>
    childState({
      input,
      workflowId,
      d,
      running: running.size,
      c: controls,
      phase,
      waiting,
      total,
      startedAt,
      runs,
      now: Date.now(),
      ...(pricePerHour !== undefined ? { pricePerHour } : {}),
      ...(end.at !== undefined ? { endedAt: end.at } : {}),
      ...(input.retryOf ? { retry: { attempt: input.retryOf.attempt, of: input.retryOf.runId } } : {}),
      ...(retried.overall ? { overall: retried.overall } : {}),
    });
  setHandler(batchStateQuery, state);
  // No child starts after pause answers (children already started go on, and submit their job).
  setHandler(pauseUpdate, () => {
    controls.paused = true;
    events++;
    return state();
  });
  setHandler(resumeUpdate, () => {
    controls.paused = false;
    events++;
    return state();
  });
  setHandler(configureUpdate, (c: BatchConfigure) => {
    configure(controls, c);
    events++;
    return state();
  });
  let cancelRequested = false;
  CancellationScope.current().cancelRequested.catch(() => {
    cancelRequested = true;
    controls.cancelling = true;
    events++;
  });

  /** Starts the child of `ref` in its own scope (cancelled with the batch); its end becomes the input's outcome. */
  const launch = (ref: LineRef): void => {
    const scope = new CancellationScope();
    const entry: Running & { scope: CancellationScope } = {
      t0: Date.now(),
      scope,
      ...(ref.k !== undefined ? { k: ref.k } : {}),
    };
    running.set(ref.i, entry);
    d.counts.submitted++;
    const ended = (r: { f: Parameters<typeof finalize>[1]; execMs: number; retries: number }): void => {
      running.delete(ref.i);
      finalize(d, r.f, r.execMs, r.retries);
      timers.armFlush();
      events++;
    };
    void scope
      .run(async () => {
        const child = await startChild(jobWorkflow, {
          workflowId: batchChildId(workflowId, ref.i),
          args: [childInput(input, ref)],
          // Terminating the batch cancels its children (and so their remote jobs).
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        });
        entry.cr = child.firstExecutionRunId;
        return child.result();
      })
      .then(
        (r) => ended(finalOfResult(ref, entry, r, Date.now())),
        (err: unknown) => ended(finalOfFailure(ref, entry, err, Date.now())),
      );
  };

  const write = async (): Promise<void> => {
    const batch = d.finals.slice(0, FLUSH_AT);
    const res = await acts.writeChildOutcomes({
      run,
      seq: d.seq,
      endpointId: input.endpointId,
      source: input.source,
      write: batch,
      ...(pricePerHour === undefined ? { wantPrice: true } : {}),
    });
    d.seq++;
    d.finals.splice(0, batch.length);
    timers.flushDue = false;
    pricePerHour ??= res.pricePerHour;
  };

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
    let started = 0;
    for (;;) {
      const now = Date.now();
      timers.armDeadline(controls.deadline, now);
      if (controls.cancelling) {
        for (const r of running.values()) {
          if (r.cancelled) continue;
          r.cancelled = true;
          r.scope.cancel();
        }
      }
      // Children cannot be awaited across continue-as-new: past the threshold, the window drains first.
      const rollover = started >= o.childrenPerRun || workflowInfo().continueAsNewSuggested;
      const blockers = controls.cancelling ? [] : submitBlockers(controls, spend(), now);
      const canStart = !controls.cancelling && blockers.length === 0 && !rollover;
      if (canStart) {
        const starts = pickStarts(d, running, controls);
        for (const ref of starts) launch(ref);
        started += starts.length;
        if (!d.eof && running.size < windowOf(controls) && d.pending.length < MAX_PENDING) {
          const page = await acts.readChildLines({
            run,
            ...(input.retryOf ? { subset: true } : {}),
            endpointId: input.endpointId,
            source: input.source,
            from: d.cursor,
            lines: Math.min(PAGE, MAX_PENDING - d.pending.length),
            inputFormat: o.inputFormat,
            ...(o.policy ? { policy: o.policy } : {}),
            ...(o.keyPath ? { keyPath: o.keyPath } : {}),
            ...(pricePerHour === undefined ? { wantPrice: true } : {}),
          });
          d.counts.read += page.refs.length + page.bad.length;
          d.cursor = page.cursor;
          d.eof = page.eof;
          d.pending.push(...page.refs);
          for (const b of page.bad) finalize(d, { i: b.i, s: 'BAD_INPUT', a: 0, ids: [], e: b.reason, t1: Date.now() });
          pricePerHour ??= page.pricePerHour;
          continue;
        }
      }
      waiting = waitingOf(d, running, controls, blockers);
      if (d.finals.length >= FLUSH_AT || (d.finals.length > 0 && (running.size === 0 || timers.flushDue))) {
        await write();
        continue;
      }
      if (running.size === 0) {
        const more = !d.eof || d.pending.length > 0;
        if (controls.cancelling || !more || blockers.some((b) => b !== 'paused')) break;
        if (rollover) {
          await condition(allHandlersFinished);
          const next: ChildrenCarry = {
            children: d,
            controls,
            startedAt,
            runs,
            total,
            ...(pricePerHour !== undefined ? { pricePerHour } : {}),
          };
          return continueAsNew<Sig>(input, next);
        }
      }
      const seen = events;
      await condition(() => events !== seen);
    }
  });

  // The end: every line never started is NOT_SUBMITTED (or BAD_INPUT), the outcome files are written.
  phase = 'finishing';
  const reason = unsentReason(controls, spend(), Date.now());
  const fin = await finishRun(
    {
      run,
      seq: d.seq++,
      source: input.source,
      inputFormat: o.inputFormat,
      ...(o.policy ? { policy: o.policy } : {}),
      outDir: input.outDir,
      write: [],
      deferred: d.pending,
      cursor: d.cursor,
      eof: d.eof,
      reason,
      state: { ...state(), phase: 'done', endedAt: Date.now() },
      ...(input.retryOf ? { retry: { attempt: input.retryOf.attempt } } : {}),
    },
    d.counts,
  );
  d.pending = [];
  if (fin.overall) retried.overall = fin.overall;
  phase = 'done';
  end.at = Date.now();
  waiting = [];
  if (cancelRequested) throw new CancelledFailure('batch cancelled');
  return state();
}
