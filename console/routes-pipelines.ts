/** The pipeline routes: a pipeline's page, its live part and its outcomes (failures by stage, skipped per stage, the chart's history). */
import { type Hono } from 'hono';
import { OutcomeHistory } from '../client/outcome-history';
import { pipelineEnded, type PipelineEnded } from '../client/pipeline-status';
import { type ConsoleContext, pipelineViewOf, setHistory } from './context';
import { page } from './html';
import { pipelineEndedView, pipelineLive, pipelinePage, type SkippedByStage } from './pages/pipeline';

/** Outcome passes kept (the last of each pipeline; an ended pipeline's for good, until this many). */
const KEPT = 50;

export function registerPipelineRoutes(app: Hono, ctx: ConsoleContext): void {
  /** The last pass over each pipeline's outcomes, and the key of the ended run it read (none while running). */
  const passes = new Map<string, { ended: PipelineEnded; key?: string }>();
  const skippedOf = (id: string): SkippedByStage => {
    const p = passes.get(id);
    if (!p) return undefined;
    return Object.fromEntries(Object.entries(p.ended.byStage).map(([stage, by]) => [stage, by.SKIPPED ?? 0]));
  };

  app.get('/pipelines', (c) => c.redirect('/batches?kind=pipeline', 302));
  app.get('/pipelines/:id', async (c) => {
    const id = c.req.param('id');
    if (!(await ctx.sources.pipeline.exists(id))) return c.notFound();
    const v = await pipelineViewOf(ctx, id);
    return c.html(pipelinePage(id, v, ctx.series, skippedOf(id), ctx.now()));
  });
  app.get('/pipelines/:id/live', async (c) => {
    const id = c.req.param('id');
    return c.html(pipelineLive(id, await pipelineViewOf(ctx, id), ctx.series, skippedOf(id), ctx.now()));
  });
  app.get('/pipelines/:id/failures', async (c) => {
    const id = c.req.param('id');
    const v = await pipelineViewOf(ctx, id);
    const s = v.state;
    const key = v.workflowStatus === 'RUNNING' ? undefined : `${s?.endedAt ?? ''}@${s?.runs ?? ''}`;
    let pass = passes.get(id);
    if (!pass || pass.key === undefined || pass.key !== key) {
      // One pass over the result lines: failures by stage and type, stopped inputs per stage, the chart's history.
      const history = s ? new OutcomeHistory(s.startedAt, s.endedAt ?? ctx.now()) : undefined;
      const ended = await pipelineEnded(ctx.sources.pipeline, id, history ? { history } : {});
      if (history) setHistory(ctx, `pipeline/${id}`, history.points());
      pass = { ended, ...(key !== undefined ? { key } : {}) };
      passes.delete(id);
      passes.set(id, pass);
      while (passes.size > KEPT) passes.delete(passes.keys().next().value!);
    }
    const view = pipelineEndedView(pass.ended);
    if (c.req.header('hx-request')) return c.html(view);
    return c.html(page({ title: `Where the inputs of pipeline ${id} stopped`, section: '/batches', body: view }));
  });
}
