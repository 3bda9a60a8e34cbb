/** The batch routes: the list and its live rows, a batch's page, its live part and its failures (and its chart's history). */
import { type Hono } from 'hono';
import { OutcomeHistory } from '../client/outcome-history';
import { type ConsoleContext, batchViewOf, setHistory } from './context';
import { page } from './html';
import { batchLive, batchPage, failuresView } from './pages/batch';
import { batchListPage, listFragment, listQuery, loadRows } from './pages/batches';

/** Failure groups kept per ended batch run (an ended batch's outcomes no longer change). */
const FAILURES_KEPT = 50;

export function registerBatchRoutes(app: Hono, ctx: ConsoleContext): void {
  app.get('/batches', async (c) => {
    const q = listQuery(c.req.query());
    const { rows, more } = await loadRows(ctx, q);
    return c.html(batchListPage(rows, q, more, ctx.now()));
  });
  app.get('/batches/rows', async (c) => {
    const q = listQuery(c.req.query());
    const { rows } = await loadRows(ctx, q);
    return c.html(listFragment(rows, q, ctx.now()));
  });
  app.get('/batches/:id', async (c) => {
    const id = c.req.param('id');
    if (!(await ctx.sources.batch.exists(id))) return c.notFound();
    return c.html(batchPage(id, await batchViewOf(ctx, id), ctx.series, ctx.now()));
  });
  app.get('/batches/:id/live', async (c) => {
    const id = c.req.param('id');
    return c.html(batchLive(id, await batchViewOf(ctx, id), ctx.series, ctx.now()));
  });
  const ended = new Map<string, Awaited<ReturnType<ConsoleContext['sources']['batch']['failures']>>>();
  app.get('/batches/:id/failures', async (c) => {
    const id = c.req.param('id');
    const v = await batchViewOf(ctx, id);
    const key = v.workflowStatus === 'RUNNING' ? undefined : `${id}@${v.state?.endedAt ?? ''}@${v.state?.runs ?? ''}`;
    let groups = key ? ended.get(key) : undefined;
    if (!groups) {
      // The same pass rebuilds the chart's history from the outcomes (times from before this console looked).
      const from = v.state?.startedAt;
      const history = from === undefined ? undefined : new OutcomeHistory(from, v.state?.endedAt ?? ctx.now());
      groups = await ctx.sources.batch.failures(id, {
        ...(history
          ? {
              seen: (l) =>
                l.endedAt !== undefined && history.add({ ...l, ok: l.status === 'COMPLETED', endedAt: l.endedAt }),
            }
          : {}),
      });
      if (history) setHistory(ctx, `batch/${id}`, history.points());
      if (key) {
        ended.set(key, groups);
        if (ended.size > FAILURES_KEPT) ended.delete(ended.keys().next().value!);
      }
    }
    const view = failuresView(groups);
    if (c.req.header('hx-request')) return c.html(view);
    return c.html(page({ title: `Failures of batch ${id}`, section: '/batches', body: view }));
  });
}
