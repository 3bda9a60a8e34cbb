/** What every page handler shares: the sources, the samples over time, and the states of ended batches (they no longer change). */
import { type BatchState } from '../contracts';
import { batchStatus } from '../client/batch-status';
import { type BatchView } from '../client/batch';
import { SeriesBook } from './series';
import { type ConsoleSources } from './sources';

/** The console's state for the life of its server. */
export interface ConsoleContext {
  sources: ConsoleSources;
  series: SeriesBook;
  /** Ended batches' views by workflow id and close time: read once. */
  ended: Map<string, BatchView>;
  now: () => number;
}

export function consoleContext(sources: ConsoleSources, now: () => number = Date.now): ConsoleContext {
  return { sources, series: new SeriesBook(), ended: new Map(), now };
}

/** The series names of a batch's chart. */
export const BATCH_SERIES = ['completed', 'failed', 'in flight'];

/** Records a batch's sample (done, failed, in flight) in the console's series. */
export function sampleBatch(ctx: ConsoleContext, s: BatchState): void {
  const key = `batch/${s.batchId}`;
  if (ctx.series.samples(key).length === 0)
    ctx.series.record(key, s.startedAt, { completed: 0, failed: 0, 'in flight': 0 });
  const completed = s.counts.byStatus.COMPLETED ?? 0;
  ctx.series.record(key, s.endedAt ?? ctx.now(), {
    completed,
    failed: s.counts.done - completed,
    'in flight': s.counts.inFlight,
  });
}

/**
 * A batch's status (as `sluice batch status` reads it); an ended one is read once and kept (a
 * closed batch is not queried again on each refresh).
 */
export async function batchViewOf(ctx: ConsoleContext, id: string, closeKey?: string): Promise<BatchView> {
  const cached = closeKey ? ctx.ended.get(closeKey) : undefined;
  if (cached) return cached;
  const v = await batchStatus(ctx.sources.batch, id);
  if (v.state) sampleBatch(ctx, v.state);
  if (closeKey && v.workflowStatus !== 'RUNNING') {
    ctx.ended.set(closeKey, v);
    if (ctx.ended.size > 2000) ctx.ended.delete(ctx.ended.keys().next().value!);
  }
  return v;
}
