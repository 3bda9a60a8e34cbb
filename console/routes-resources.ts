/** The routes of scalers, endpoints and jobs: lists, pages and their live parts. */
import { type Hono } from 'hono';
import { type ScalerView } from '../client/scaler';
import { type ConsoleContext } from './context';
import { endpointListPage, endpointLive, endpointPage, type EndpointRow, type RecentJob } from './pages/endpoints';
import { jobLive, jobPage, type JobExtras } from './pages/job';
import { sampleScaler, scalerListPage, scalerLive, scalerPage } from './pages/scalers';
import { temporalLink } from './sources';

/** Stream chunks a job's page shows at most. */
const CHUNKS_SHOWN = 200;

async function scalerView(ctx: ConsoleContext, endpointId: string): Promise<ScalerView> {
  const v = await ctx.sources.scaler.view(endpointId);
  sampleScaler(ctx, v);
  return v;
}

/** An endpoint with its `/health` (or why there is none). */
async function withHealth(ctx: ConsoleContext, endpoint: EndpointRow['endpoint']): Promise<EndpointRow> {
  const { queue } = ctx.sources;
  if (!queue) return { endpoint, error: 'no queue URL configured' };
  return queue.health(endpoint.id).then(
    (health) => ({ endpoint, health }),
    (err: Error) => ({ endpoint, error: err.message }),
  );
}

/** Every endpoint of the service with its health; undefined without a service. */
async function endpointRows(ctx: ConsoleContext): Promise<EndpointRow[] | undefined> {
  if (!ctx.sources.graphql) return undefined;
  const list = (await ctx.sources.graphql.listEndpoints()).endpoints;
  return Promise.all(list.map((e) => withHealth(ctx, e)));
}

/** One endpoint (by id or name) with its health. */
async function endpointRow(ctx: ConsoleContext, id: string): Promise<EndpointRow | undefined> {
  const list = ctx.sources.graphql ? (await ctx.sources.graphql.listEndpoints()).endpoints : [];
  const e = list.find((x) => x.id === id) ?? list.find((x) => x.name === id);
  return e ? withHealth(ctx, e) : undefined;
}

/** The endpoint's recent job workflows, with the times of those that ended (their results). */
async function recentJobs(ctx: ConsoleContext, endpointId: string): Promise<RecentJob[]> {
  const jobs = await ctx.sources.job.recent({ endpointId, limit: 15 });
  return Promise.all(
    jobs.map(async (j): Promise<RecentJob> => {
      const url = temporalLink(ctx.sources, j.workflowId);
      const r = j.status === 'RUNNING' ? undefined : await ctx.sources.job.result(j.workflowId).catch(() => undefined);
      return {
        ...j,
        ...(url ? { temporalUrl: url } : {}),
        ...(r?.delayTime !== undefined ? { delayTime: r.delayTime } : {}),
        ...(r?.executionTime !== undefined ? { executionTime: r.executionTime } : {}),
      };
    }),
  );
}

async function jobExtras(
  ctx: ConsoleContext,
  workflowId: string,
  v: Awaited<ReturnType<ConsoleContext['sources']['job']['state']>>,
): Promise<JobExtras> {
  const url = temporalLink(ctx.sources, workflowId);
  const output = v.result ? await ctx.sources.job.output(v.result).catch(() => undefined) : undefined;
  const chunks =
    (v.state?.streamChunks ?? v.result?.streamChunks ?? 0) > 0
      ? await ctx.sources.job.streamChunks(workflowId).catch(() => [])
      : [];
  return {
    ...(output !== undefined ? { output } : {}),
    chunks: chunks.slice(0, CHUNKS_SHOWN),
    chunkCount: chunks.length,
    ...(url ? { temporalUrl: url } : {}),
  };
}

export function registerResourceRoutes(app: Hono, ctx: ConsoleContext): void {
  app.get('/scalers', async (c) => {
    const list = await ctx.sources.scaler.list({ limit: 100 });
    const rows = await Promise.all(
      list.map(async (s) => ({
        ...s,
        ...(s.status === 'RUNNING' ? { view: await scalerView(ctx, s.endpointId).catch(() => undefined) } : {}),
      })),
    );
    return c.html(scalerListPage(rows.map(({ view, ...r }) => ({ ...r, ...(view ? { view } : {}) }))));
  });
  app.get('/scalers/:endpoint', async (c) => {
    const endpointId = c.req.param('endpoint');
    if (!(await ctx.sources.scaler.exists(endpointId))) return c.notFound();
    const [v, schedules] = await Promise.all([
      scalerView(ctx, endpointId),
      ctx.sources.scaler.schedules.list({ endpointId }).catch(() => []),
    ]);
    return c.html(scalerPage(endpointId, v, schedules, ctx.series));
  });
  app.get('/scalers/:endpoint/live', async (c) => {
    const endpointId = c.req.param('endpoint');
    return c.html(scalerLive(endpointId, await scalerView(ctx, endpointId), ctx.series));
  });
  app.get('/endpoints', async (c) => c.html(endpointListPage(await endpointRows(ctx))));
  const endpoint = (id: string) => endpointRow(ctx, id);
  app.get('/endpoints/:id', async (c) => {
    const row = await endpoint(c.req.param('id'));
    if (!row) return c.notFound();
    return c.html(endpointPage(row, await recentJobs(ctx, row.endpoint.id)));
  });
  app.get('/endpoints/:id/live', async (c) => {
    const row = await endpoint(c.req.param('id'));
    if (!row) return c.notFound();
    return c.html(endpointLive(row, await recentJobs(ctx, row.endpoint.id)));
  });
  app.get('/jobs/:workflowId', async (c) => {
    const id = c.req.param('workflowId');
    if (!(await ctx.sources.job.exists(id))) return c.notFound();
    const v = await ctx.sources.job.state(id);
    return c.html(jobPage(v, await jobExtras(ctx, id, v)));
  });
  app.get('/jobs/:workflowId/live', async (c) => {
    const id = c.req.param('workflowId');
    const v = await ctx.sources.job.state(id);
    return c.html(jobLive(v, await jobExtras(ctx, id, v)));
  });
}
