/** The bulk mode's run as the workflow holds it: its ledger, controls and progress, and what it carries on. Pure. */
import type { BatchCounts, BatchFeed, BatchState, BatchWorkflowInput, WaitReason } from '../../contracts';
import { initialControls, spendOf, type Controls } from './controls';
import { newLedger, type LedgerData } from './ledger';

/** What the bulk mode carries into its next run (continue-as-new); field names are recorded in history. */
export interface BatchCarry {
  ledger: LedgerData;
  controls: Controls;
  startedAt: number;
  runs: number;
  total: number;
  pricePerHour?: number;
  /** An open source (`input.feed`): how far the feed goes, as the last `batchFeed` signal said. */
  feed?: BatchFeed;
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
  /** The first step opens the batch (`BATCH_PATCHES.openInStep`): its total is not known until that step ends. */
  opening?: boolean;
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
  const feed = carry?.feed ?? (input.feed ? { lines: 0, bytes: 0, closed: false } : undefined);
  if (feed) r.feed = feed;
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
  ...(r.feed ? { feed: r.feed } : {}),
});

/** An open feed: takes what a `batchFeed` signal says (never moving back); the lines so far are the total. */
export function feedTo(r: BulkRun, f: BatchFeed): void {
  if (!r.feed) return;
  r.feed = {
    lines: Math.max(r.feed.lines, f.lines),
    bytes: Math.max(r.feed.bytes, f.bytes),
    closed: r.feed.closed || f.closed,
  };
  r.total = r.feed.lines;
  if (f.stop !== undefined) r.controls.stop = f.stop;
}

/**
 * An open feed's reading: nothing to read past what the feed is known to hold (the ledger's `eof`),
 * and true while more may still come (not closed, or closed past the cursor).
 */
export function feedOpen(r: BulkRun): boolean {
  if (!r.feed) return false;
  r.ledger.eof = r.ledger.cursor.offset >= r.feed.bytes;
  return !(r.feed.closed && r.ledger.eof);
}
