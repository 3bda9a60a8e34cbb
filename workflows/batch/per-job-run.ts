/**
 * The per-job mode's run as the workflow holds it (its ledger, controls, children in flight and
 * progress), what it carries on and shows (state.ts builds the query's answer), and its window of
 * children: starting one (its end becomes the input's outcome) and cancelling them.
 */
import { CancellationScope, ChildWorkflowCancellationType, ParentClosePolicy, startChild } from '@temporalio/workflow';
import { batchChildId } from '../../contracts/names';
import type { BatchState, BatchWorkflowInput, RunScope, WaitReason } from '../../contracts';
import type { LineRef } from '../../activities/batch/types';
import { spendOf } from './controls';
import { type LoopTimers } from './per-job-timers';
import {
  childInput,
  finalOfFailure,
  finalOfResult,
  finalize,
  type ChildLedger,
  type ChildrenCarry,
  type Running,
} from './per-job-ledger';
import { jobWorkflow } from '../job';
import { childState } from './state';

/** A child in flight, with the scope that cancels it. */
export type Child = Running & { scope: CancellationScope; cancelled?: boolean };

/** One run of a per-job batch: the carry, and what this run alone knows. */
export interface PerJobRun extends Omit<ChildrenCarry, 'children'> {
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

export const spend = (r: PerJobRun): number => spendOf(r.d.execMs, r.pricePerHour);

export const state = (r: PerJobRun): BatchState =>
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

export function cancelChildren(running: Map<number, Child>): void {
  for (const c of running.values()) {
    if (c.cancelled) continue;
    c.cancelled = true;
    c.scope.cancel();
  }
}

export const carryOf = (r: PerJobRun): ChildrenCarry => ({
  children: r.d,
  controls: r.controls,
  startedAt: r.startedAt,
  runs: r.runs,
  total: r.total,
  ...(r.pricePerHour !== undefined ? { pricePerHour: r.pricePerHour } : {}),
});

/** Starts the child of `ref` in its own scope (cancelled with the batch); its end becomes the input's outcome. */
export function launch(r: PerJobRun, ref: LineRef): void {
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
