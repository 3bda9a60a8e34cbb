/**
 * The bulk mode's run as the workflow holds it (its ledger, controls and progress) and its
 * `batchState` query, the same shape as the per-job mode's (per-job-ledger.ts `childState`). Pure.
 */
import type { BatchCounts, BatchState, BatchWorkflowInput, WaitReason } from '../../contracts';
import { batchIdOf } from '../../contracts/names';
import { initialControls, optionsOf, spendOf, type Controls } from './controls';
import { newLedger, type LedgerData } from './ledger';

/** What the bulk mode carries into its next run (continue-as-new); field names are recorded in history. */
export interface BatchCarry {
  ledger: LedgerData;
  controls: Controls;
  startedAt: number;
  runs: number;
  total: number;
  pricePerHour?: number;
}

/** One run of a bulk batch: the carry, and what this run alone knows. */
export interface BulkRun extends BatchCarry {
  input: BatchWorkflowInput;
  workflowId: string;
  phase: BatchState['phase'];
  waiting: WaitReason[];
  /** What held the last step back (the endpoint's rate budget, a higher-priority batch). */
  held: WaitReason[];
  /** A step is running (an update waits for it to end: it was planned under the old controls). */
  stepping: boolean;
  endedAt?: number;
  /** A retry-failed run, once done: the counts over every input of the batch. */
  overall?: { total: number; byStatus: BatchCounts['byStatus'] };
}

/** The run of a batch that starts (no carry) or goes on (continued as new). */
export function bulkRun(input: BatchWorkflowInput, workflowId: string, carry: BatchCarry | undefined): BulkRun {
  const o = input.options;
  const r: BulkRun = {
    input,
    workflowId,
    ledger: carry?.ledger ?? newLedger(),
    controls: carry?.controls ?? initialControls(o),
    startedAt: carry?.startedAt ?? Date.now(),
    runs: (carry?.runs ?? 0) + 1,
    total: carry?.total ?? 0,
    phase: 'running',
    waiting: [],
    held: [],
    stepping: false,
  };
  const price = carry?.pricePerHour ?? o.pricePerHour;
  if (price !== undefined) r.pricePerHour = price;
  return r;
}

/** The run's estimated spend so far (USD). */
export const bulkSpend = (r: BulkRun): number => spendOf(r.ledger.execMs, r.pricePerHour);

/** What the run carries into the next (continue-as-new). */
export const carryOf = (r: BulkRun): BatchCarry => ({
  ledger: r.ledger,
  controls: r.controls,
  startedAt: r.startedAt,
  runs: r.runs,
  total: r.total,
  ...(r.pricePerHour !== undefined ? { pricePerHour: r.pricePerHour } : {}),
});

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
      : { ...ledger.counts, total: r.total },
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
