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
  /** Ended batches' views, by workflow id and close time (for good) or by id (for a while). */
  ended: Map<string, { view: BatchView; at: number }>;
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

/** How long an ended batch's view is kept by its id alone (a rerun started elsewhere shows after this). */
export const ENDED_TTL_MS = 15_000;

/**
 * A batch's status (as `sluice batch status` reads it). An ended one is kept (its query replays its
 * history): by `closeKey` (id and close time, from the list) for good, by id for {@link ENDED_TTL_MS}.
 */
export async function batchViewOf(ctx: ConsoleContext, id: string, closeKey?: string): Promise<BatchView> {
  const byId = ctx.ended.get(`id:${id}`);
  const cached =
    (closeKey ? ctx.ended.get(closeKey) : undefined) ?? (byId && byId.at > ctx.now() - ENDED_TTL_MS ? byId : undefined);
  if (cached) return cached.view;
  const v = await batchStatus(ctx.sources.batch, id);
  if (v.state) sampleBatch(ctx, v.state);
  if (v.workflowStatus !== 'RUNNING') {
    if (closeKey) ctx.ended.set(closeKey, { view: v, at: ctx.now() });
    ctx.ended.set(`id:${id}`, { view: v, at: ctx.now() });
    while (ctx.ended.size > 2000) ctx.ended.delete(ctx.ended.keys().next().value!);
  }
  return v;
}

/** Forgets what is kept of a batch (an action changed it). */
export function forgetBatch(ctx: ConsoleContext, id: string): void {
  ctx.ended.delete(`id:${id}`);
}
