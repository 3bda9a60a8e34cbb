/**
 * A batch in the `--per-job-workflows` mode: a sliding window of child job workflows
 * (`batch/<id>/<index>`), each reading its own input line; the same controls, outcome files and
 * state query as the bulk mode. Only positions, counters and small summaries enter history.
 * Retries are each child's own (the job workflow's retry rule, contracts/retry-rule.ts).
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
import { batchChildId } from '../../contracts/names';
import { ACTIVITY_RETRY } from '../../contracts/retry-rule';
import type { BatchConfigure, BatchState, BatchWorkflowInput, RunScope, WaitReason } from '../../contracts';
import type { BatchActivities } from '../../activities/batch/activities';
import type { LineRef } from '../../activities/batch/types';
import { finishRun, selectFailed, unsentReason } from './finish';
import { configure, initialControls, spendOf, submitBlockers } from './controls';
import { LoopTimers } from './per-job-timers';
import {
  childInput,
  childState,
  finalOfFailure,
  finalOfResult,
  finalize,
  newChildLedger,
  pickStarts,
  waitingOf,
  windowOf,
  type ChildLedger,
  type ChildrenCarry,
  type Running,
} from './per-job-ledger';
import { jobWorkflow } from '../job';
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

/** A child in flight, with the scope that cancels it. */
type Child = Running & { scope: CancellationScope; cancelled?: boolean };

/** One run of a per-job batch: the carry, and what this run alone knows. */
interface PerJobRun extends Omit<ChildrenCarry, 'children'> {
  input: BatchWorkflowInput;
  run: RunScope;
  d: ChildLedger;
  running: Map<number, Child>;
  phase: BatchState['phase'];
  waiting: WaitReason[];
  endedAt?: number;
  /** A retry-failed run, once done: the counts over every input of the batch. */
  overall?: { total: number; byStatus: BatchState['counts']['byStatus'] };
  /** Bumped by everything the loop waits for: a child's end, a message, a timer. */
  events: number;
  timers: LoopTimers;
  /** Children started by this run (past `childrenPerRun`, the window drains and the run continues as new). */
  started: number;
}

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
    if (!carry) await open(r);
    await loop(r);
  });

  // The end: every line never started is NOT_SUBMITTED (or BAD_INPUT), the outcome files are written.
  await finish(r);
  if (cancel.requested) throw new CancelledFailure('batch cancelled');
  return state(r);
}

const spend = (r: PerJobRun): number => spendOf(r.d.execMs, r.pricePerHour);

const state = (r: PerJobRun): BatchState =>
  childState({
    input: r.input,
    workflowId: r.run.workflowId,
    d: r.d,
    running: r.running.size,
    c: r.controls,
    phase: r.phase,
    waiting: r.waiting,
    total: r.total,
    startedAt: r.startedAt,
    runs: r.runs,
    now: Date.now(),
    ...(r.pricePerHour !== undefined ? { pricePerHour: r.pricePerHour } : {}),
    ...(r.endedAt !== undefined ? { endedAt: r.endedAt } : {}),
    ...(r.input.retryOf ? { retry: { attempt: r.input.retryOf.attempt, of: r.input.retryOf.runId } } : {}),
    ...(r.overall ? { overall: r.overall } : {}),
  });

/** The query, the updates, and the workflow's cancellation (it cancels every child). */
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

/** The first run opens the batch: its size and price (a retry-failed run: the failed lines it selects). */
async function open(r: PerJobRun): Promise<void> {
  const { input } = r;
  const o = input.options;
  const opened = await acts.openBatch({
    endpointId: input.endpointId,
    source: input.source,
    ...(o.pricePerHour !== undefined ? { pricePerHour: o.pricePerHour } : {}),
  });
  r.total = opened.total;
  r.pricePerHour = opened.pricePerHour;
  if (input.retryOf) r.total = await selectFailed(r.run, input.outDir, input.retryOf);
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

function cancelChildren(running: Map<number, Child>): void {
  for (const c of running.values()) {
    if (c.cancelled) continue;
    c.cancelled = true;
    c.scope.cancel();
  }
}

const carryOf = (r: PerJobRun): ChildrenCarry => ({
  children: r.d,
  controls: r.controls,
  startedAt: r.startedAt,
  runs: r.runs,
  total: r.total,
  ...(r.pricePerHour !== undefined ? { pricePerHour: r.pricePerHour } : {}),
});

/** Starts the child of `ref` in its own scope (cancelled with the batch); its end becomes the input's outcome. */
function launch(r: PerJobRun, ref: LineRef): void {
  const { input, d } = r;
  const scope = new CancellationScope();
  const entry: Child = { t0: Date.now(), scope, ...(ref.k !== undefined ? { k: ref.k } : {}) };
  r.running.set(ref.i, entry);
  d.counts.submitted++;
  const ended = (e: { f: Parameters<typeof finalize>[1]; execMs: number; retries: number }): void => {
    r.running.delete(ref.i);
    finalize(d, e.f, e.execMs, e.retries);
    r.timers.armFlush();
    r.events++;
  };
  void scope
    .run(async () => {
      const child = await startChild(jobWorkflow, {
        workflowId: batchChildId(r.run.workflowId, ref.i),
        args: [childInput(input, ref)],
        // Terminating the batch cancels its children (and so their remote jobs).
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
      });
      entry.cr = child.firstExecutionRunId;
      return child.result();
    })
    .then(
      (res) => ended(finalOfResult(ref, entry, res, Date.now())),
      (err: unknown) => ended(finalOfFailure(ref, entry, err, Date.now())),
    );
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
