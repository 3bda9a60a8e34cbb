/** What every page handler shares: the sources, the samples over time, and the views of ended batches and pipelines (they no longer change). */
import { type BatchState, type PipelineState } from '../contracts';
import { batchStatus } from '../client/batch-status';
import { type BatchView } from '../client/batch';
import { type HistoryPoint } from '../client/outcome-history';
import { type PipelineView } from '../client/pipeline';
import { pipelineFigures, pipelineStatus } from '../client/pipeline-status';
import { SeriesBook } from './series';
import { type ConsoleSources } from './sources';

/** A view kept: by workflow id and close time (for good) or by id (for a while). */
type Kept<V> = Map<string, { view: V; at: number }>;

/** The console's state for the life of its server. */
export interface ConsoleContext {
  sources: ConsoleSources;
  series: SeriesBook;
  /** Ended batches' views. */
  ended: Kept<BatchView>;
  /** Ended pipelines' views. */
  endedPipelines: Kept<PipelineView>;
  now: () => number;
}

export function consoleContext(sources: ConsoleSources, now: () => number = Date.now): ConsoleContext {
  return { sources, series: new SeriesBook(), ended: new Map(), endedPipelines: new Map(), now };
}

/** The series names of a batch's or a pipeline's chart. */
export const BATCH_SERIES = ['completed', 'failed', 'in flight'];

/** Records a sample (completed, failed, in flight) of `key`; the first one is the start, at zero. */
function sample(ctx: ConsoleContext, key: string, startedAt: number, at: number, v: [number, number, number]): void {
  if (ctx.series.samples(key).length === 0)
    ctx.series.record(key, startedAt, { completed: 0, failed: 0, 'in flight': 0 });
  ctx.series.record(key, at, { completed: v[0], failed: v[1], 'in flight': v[2] });
}

/** Records a batch's sample (done, failed, in flight) in the console's series. */
export function sampleBatch(ctx: ConsoleContext, s: BatchState): void {
  const completed = s.counts.byStatus.COMPLETED ?? 0;
  sample(ctx, `batch/${s.batchId}`, s.startedAt, s.endedAt ?? ctx.now(), [
    completed,
    s.counts.done - completed,
    s.counts.inFlight,
  ]);
}

/** Records a pipeline's sample (inputs completed or skipped, failed, in flight). */
export function samplePipeline(ctx: ConsoleContext, s: PipelineState): void {
  const failed = pipelineFigures(s, ctx.now()).failed;
  sample(ctx, `pipeline/${s.pipelineId}`, s.startedAt, s.endedAt ?? ctx.now(), [
    s.counts.done - failed,
    failed,
    s.counts.inFlight,
  ]);
}

/** Sets the history of a chart's key from the points rebuilt from the outcomes. */
export function setHistory(ctx: ConsoleContext, key: string, points: HistoryPoint[]): void {
  ctx.series.setHistory(
    key,
    points.map((p) => ({ at: p.at, values: { completed: p.completed, failed: p.failed, 'in flight': p.inFlight } })),
  );
}

/** How long an ended view is kept by its id alone (a rerun started elsewhere shows after this). */
export const ENDED_TTL_MS = 15_000;

/** The view of `id`: kept when ended (reading a closed workflow's query replays its history). */
async function keptView<V extends { workflowStatus: string }>(
  ctx: ConsoleContext,
  kept: Kept<V>,
  id: string,
  closeKey: string | undefined,
  load: () => Promise<V>,
): Promise<V> {
  const byId = kept.get(`id:${id}`);
  const cached =
    (closeKey ? kept.get(closeKey) : undefined) ?? (byId && byId.at > ctx.now() - ENDED_TTL_MS ? byId : undefined);
  if (cached) return cached.view;
  const v = await load();
  if (v.workflowStatus !== 'RUNNING') {
    if (closeKey) kept.set(closeKey, { view: v, at: ctx.now() });
    kept.set(`id:${id}`, { view: v, at: ctx.now() });
    while (kept.size > 2000) kept.delete(kept.keys().next().value!);
  }
  return v;
}

/**
 * A batch's status (as `sluice batch status` reads it). An ended one is kept: by `closeKey` (id
 * and close time, from the list) for good, by id for {@link ENDED_TTL_MS}.
 */
export function batchViewOf(ctx: ConsoleContext, id: string, closeKey?: string): Promise<BatchView> {
  return keptView(ctx, ctx.ended, id, closeKey, async () => {
    const v = await batchStatus(ctx.sources.batch, id);
    if (v.state) sampleBatch(ctx, v.state);
    return v;
  });
}

/** A pipeline's status (as `sluice pipeline status` reads it), kept when ended as batches are. */
export function pipelineViewOf(ctx: ConsoleContext, id: string, closeKey?: string): Promise<PipelineView> {
  return keptView(ctx, ctx.endedPipelines, id, closeKey, async () => {
    const v = await pipelineStatus(ctx.sources.pipeline, id);
    if (v.state) samplePipeline(ctx, v.state);
    return v;
  });
}

/** Forgets what is kept of a batch (an action changed it). */
export function forgetBatch(ctx: ConsoleContext, id: string): void {
  ctx.ended.delete(`id:${id}`);
}

/** Forgets what is kept of a pipeline (an action changed it). */
export function forgetPipeline(ctx: ConsoleContext, id: string): void {
  ctx.endedPipelines.delete(`id:${id}`);
}
