/**
 * The `batchState` query of both modes of a batch, one shape: the bulk mode's from its run
 * (bulk-run.ts), the per-job mode's from its ledger and window (per-job-ledger.ts). Pure.
 */
import type { BatchCounts, BatchState, BatchWorkflowInput, WaitReason } from '../../contracts';
import { batchIdOf } from '../../contracts/names';
import { optionsOf, spendOf, type Controls } from './controls';
import { bulkSpend, type BulkRun } from './bulk-run';
import type { ChildLedger } from './per-job-ledger';

/** The `batchState` query of the bulk mode. */
export function bulkState(r: BulkRun, now: number): BatchState {
  const { ledger, controls, phase, input } = r;
  const secs = Math.max(1, (now - r.startedAt) / 1000);
  const completeRate = ledger.counts.done / secs;
  const left = r.total - ledger.counts.done;
  const s: BatchState = {
    batchId: batchIdOf(r.workflowId),
    endpointId: input.endpointId,
    phase:
      controls.cancelling && phase === 'running'
        ? 'cancelling'
        : controls.paused && phase === 'running'
          ? 'paused'
          : phase,
    counts: r.overall
      ? { ...ledger.counts, total: r.overall.total, done: r.overall.total, byStatus: r.overall.byStatus }
      : { ...ledger.counts, ...(r.opening ? {} : { total: r.total }) },
    waiting: r.waiting,
    spend: bulkSpend(r),
    submitRate: ledger.counts.submitted / secs,
    completeRate,
    startedAt: r.startedAt,
    lastErrors: ledger.lastErrors,
    runs: r.runs,
    outDir: input.outDir,
    options: optionsOf(controls),
  };
  if (r.pricePerHour !== undefined) s.pricePerHour = r.pricePerHour;
  if (input.retryOf)
    s.retry = {
      attempt: input.retryOf.attempt,
      of: input.retryOf.runId,
      inputs: r.total,
      byStatus: ledger.counts.byStatus,
    };
  if (completeRate > 0 && left > 0 && phase === 'running') s.eta = now + (left / completeRate) * 1000;
  // The mean over the executions whose time the service reported (a ledger carried from an older run: over the outcomes).
  if (ledger.execN) s.avgExecutionMs = ledger.execMs / ledger.execN;
  else if (ledger.counts.done > 0 && ledger.execMs > 0)
    s.avgExecutionMs = ledger.execMs / Math.max(1, ledger.counts.done - (ledger.counts.byStatus.BAD_INPUT ?? 0));
  if (r.endedAt !== undefined) s.endedAt = r.endedAt;
  return s;
}

/** The `batchState` query of this mode: the same shape as the bulk mode's. */
export function childState(a: {
  input: BatchWorkflowInput;
  workflowId: string;
  d: ChildLedger;
  running: number;
  c: Controls;
  phase: BatchState['phase'];
  waiting: WaitReason[];
  total: number;
  startedAt: number;
  runs: number;
  pricePerHour?: number;
  endedAt?: number;
  now: number;
  /** A retry-failed run; once it is done, the counts over every input of the batch. */
  retry?: { attempt: number; of: string };
  overall?: { total: number; byStatus: BatchCounts['byStatus'] };
}): BatchState {
  const { d, c } = a;
  const secs = Math.max(1, (a.now - a.startedAt) / 1000);
  const completeRate = d.counts.done / secs;
  const left = a.total - d.counts.done;
  const phase =
    c.cancelling && a.phase === 'running' ? 'cancelling' : c.paused && a.phase === 'running' ? 'paused' : a.phase;
  const s: BatchState = {
    batchId: batchIdOf(a.workflowId),
    endpointId: a.input.endpointId,
    phase,
    counts: {
      ...d.counts,
      inFlight: a.running,
      waitingRetry: 0,
      total: a.total,
      ...(a.overall ? { total: a.overall.total, done: a.overall.total, byStatus: a.overall.byStatus } : {}),
    },
    waiting: a.waiting,
    spend: spendOf(d.execMs, a.pricePerHour),
    submitRate: d.counts.submitted / secs,
    completeRate,
    startedAt: a.startedAt,
    lastErrors: d.lastErrors,
    runs: a.runs,
    outDir: a.input.outDir,
    options: optionsOf(c),
  };
  if (a.pricePerHour !== undefined) s.pricePerHour = a.pricePerHour;
  if (a.retry) s.retry = { ...a.retry, inputs: a.total, byStatus: d.counts.byStatus };
  if (completeRate > 0 && left > 0 && a.phase === 'running') s.eta = a.now + (left / completeRate) * 1000;
  const jobs = d.counts.done - (d.counts.byStatus.BAD_INPUT ?? 0);
  if (jobs > 0 && d.execMs > 0) s.avgExecutionMs = d.execMs / jobs;
  if (a.endedAt !== undefined) s.endedAt = a.endedAt;
  return s;
}
