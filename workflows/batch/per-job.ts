/**
 * A batch in the `--per-job-workflows` mode: a sliding window of child job workflows
 * (`batch/<id>/<index>`), each reading its own input line; the same controls, outcome files and
 * state query as the bulk mode. Only positions, counters and small summaries enter history.
 * Retries are each child's own (the job workflow's retry rule, contracts/retry-rule.ts). The
 * run's data, state query and window of children are per-job-run.ts; its pure bookkeeping
 * per-job-ledger.ts.
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
import { ACTIVITY_RETRY } from '../../contracts/retry-rule';
import type { BatchConfigure, BatchState, BatchWorkflowInput } from '../../contracts';
import type { BatchActivities } from '../../activities/batch/activities';
import { finishRun, openRun, unsentReason } from './finish';
import { configure, initialControls, submitBlockers } from './controls';
import { LoopTimers } from './per-job-timers';
import { finalize, newChildLedger, pickStarts, waitingOf, windowOf, type ChildrenCarry } from './per-job-ledger';
import { cancelChildren, carryOf, launch, spend, state, type PerJobRun } from './per-job-run';
import { batchStateQuery, configureUpdate, pauseUpdate, resumeUpdate } from './messages';

const acts = proxyActivities<BatchActivities>({
  startToCloseTimeout: '10 minutes',
  retry: ACTIVITY_RETRY,
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
  const { workflowId, firstExecutionRunId: runId } = workflowInfo();
  const r: PerJobRun = {
    input,
    run: { workflowId, runId },
    d: carry?.children ?? newChildLedger(),
    controls: carry?.controls ?? initialControls(input.options),
    startedAt: carry?.startedAt ?? Date.now(),
    runs: (carry?.runs ?? 0) + 1,
    total: carry?.total ?? 0,
    pricePerHour: carry?.pricePerHour ?? input.options.pricePerHour,
    phase: 'running',
    waiting: [],
    running: new Map(),
    events: 0,
    timers: new LoopTimers(FLUSH_MS, () => r.events++),
    started: 0,
  };
  const cancel = handleMessages(r);

  await CancellationScope.nonCancellable(async () => {
    if (!carry) await openRun(acts.openBatch, r.run, input, r);
    await loop(r);
  });

  // The end: every line never started is NOT_SUBMITTED (or BAD_INPUT), the outcome files are written.
  await finish(r);
  if (cancel.requested) throw new CancelledFailure('batch cancelled');
  return state(r);
}

function handleMessages(r: PerJobRun): { requested: boolean } {
  const { controls } = r;
  setHandler(batchStateQuery, () => state(r));
  // No child starts after pause answers (children already started go on, and submit their job).
  setHandler(pauseUpdate, () => {
    controls.paused = true;
    r.events++;
    return state(r);
  });
  setHandler(resumeUpdate, () => {
    controls.paused = false;
    r.events++;
    return state(r);
  });
  setHandler(configureUpdate, (c: BatchConfigure) => {
    configure(controls, c);
    r.events++;
    return state(r);
  });
  const cancel = { requested: false };
  CancellationScope.current().cancelRequested.catch(() => {
    cancel.requested = true;
    controls.cancelling = true;
    r.events++;
  });
  return cancel;
}

/** Starts children, reads lines, writes outcomes until the batch is done (or continues as new once drained). */
async function loop(r: PerJobRun): Promise<void> {
  const { d, controls, running, input } = r;
  for (;;) {
    const now = Date.now();
    r.timers.armDeadline(controls.deadline, now);
    if (controls.cancelling) cancelChildren(running);
    // Children cannot be awaited across continue-as-new: past the threshold, the window drains first.
    const rollover = r.started >= input.options.childrenPerRun || workflowInfo().continueAsNewSuggested;
    const blockers = controls.cancelling ? [] : submitBlockers(controls, spend(r), now);
    const canStart = !controls.cancelling && blockers.length === 0 && !rollover;
    if (canStart) {
      const starts = pickStarts(d, running, controls);
      for (const ref of starts) launch(r, ref);
      r.started += starts.length;
      if (!d.eof && running.size < windowOf(controls) && d.pending.length < MAX_PENDING) {
        await readPage(r);
        continue;
      }
    }
    r.waiting = waitingOf(d, running, controls, blockers);
    if (d.finals.length >= FLUSH_AT || (d.finals.length > 0 && (running.size === 0 || r.timers.flushDue))) {
      await write(r);
      continue;
    }
    if (running.size === 0) {
      const more = !d.eof || d.pending.length > 0;
      if (controls.cancelling || !more || blockers.some((b) => b !== 'paused')) return;
      if (rollover) {
        await condition(allHandlersFinished);
        await continueAsNew<Sig>(input, carryOf(r));
      }
    }
    const seen = r.events;
    await condition(() => r.events !== seen);
  }
}

/** Reads the next page of lines into `pending` (bad lines get their outcome at once). */
async function readPage(r: PerJobRun): Promise<void> {
  const { input, d } = r;
  const o = input.options;
  const page = await acts.readChildLines({
    run: r.run,
    ...(input.retryOf ? { subset: true } : {}),
    endpointId: input.endpointId,
    source: input.source,
    from: d.cursor,
    lines: Math.min(PAGE, MAX_PENDING - d.pending.length),
    inputFormat: o.inputFormat,
    ...(o.policy ? { policy: o.policy } : {}),
    ...(o.keyPath ? { keyPath: o.keyPath } : {}),
    ...(r.pricePerHour === undefined ? { wantPrice: true } : {}),
  });
  d.counts.read += page.refs.length + page.bad.length;
  d.cursor = page.cursor;
  d.eof = page.eof;
  d.pending.push(...page.refs);
  for (const b of page.bad) finalize(d, { i: b.i, s: 'BAD_INPUT', a: 0, ids: [], e: b.reason, t1: Date.now() });
  r.pricePerHour ??= page.pricePerHour;
}

/** Writes up to {@link FLUSH_AT} decided outcomes. */
async function write(r: PerJobRun): Promise<void> {
  const { d } = r;
  const batch = d.finals.slice(0, FLUSH_AT);
  const res = await acts.writeChildOutcomes({
    run: r.run,
    seq: d.seq,
    endpointId: r.input.endpointId,
    source: r.input.source,
    write: batch,
    ...(r.pricePerHour === undefined ? { wantPrice: true } : {}),
  });
  d.seq++;
  d.finals.splice(0, batch.length);
  r.timers.flushDue = false;
  r.pricePerHour ??= res.pricePerHour;
}

/** Writes the outcome files: every line never started is NOT_SUBMITTED (or BAD_INPUT). Not cancellable. */
async function finish(r: PerJobRun): Promise<void> {
  const { input, d } = r;
  const o = input.options;
  r.phase = 'finishing';
  const reason = unsentReason(r.controls, spend(r), Date.now());
  const fin = await finishRun(
    {
      run: r.run,
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
      state: { ...state(r), phase: 'done', endedAt: Date.now() },
      ...(input.retryOf ? { retry: { attempt: input.retryOf.attempt } } : {}),
    },
    d.counts,
  );
  d.pending = [];
  if (fin.overall) r.overall = fin.overall;
  r.phase = 'done';
  r.endedAt = Date.now();
  r.waiting = [];
}
