/** `/batches`: the batches (and, once they exist, pipelines) in one list, with filters and pages, refreshed live. */
import { type BatchView } from '../../client/batch';
import { failedCount } from '../../client/batch-status';
import { type ConsoleContext, batchViewOf } from '../context';
import { badge, bar, duration, h, live, num, page, table, time, usd, type Html } from '../html';

/** Rows per page. */
export const PAGE_SIZE = 20;

/** The statuses the list filters on (Temporal's workflow statuses). */
export const STATUS_FILTERS = ['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'TIMED_OUT'] as const;

/** One row: a batch (kind `batch`) or a pipeline (kind `pipeline`, its route /pipelines/:id). */
export interface OrchestrationRow {
  kind: 'batch' | 'pipeline';
  id: string;
  startTime: number;
  view: BatchView;
}

/** The list's query: a status filter and a page number (from 1). */
export interface ListQuery {
  status?: string;
  page: number;
}

/** Reads a query string's filter and page; anything unknown is ignored. */
export function listQuery(q: Record<string, string | undefined>): ListQuery {
  const status = STATUS_FILTERS.find((s) => s === q.status);
  const n = Number(q.page);
  return { ...(status ? { status } : {}), page: Number.isInteger(n) && n > 0 ? n : 1 };
}

const href = (q: ListQuery): string => {
  const p = new URLSearchParams();
  if (q.status) p.set('status', q.status);
  if (q.page > 1) p.set('page', String(q.page));
  const s = p.toString();
  return s ? `/batches?${s}` : '/batches';
};

/** The rows of one page (one more is read to know whether a next page exists). */
export async function loadRows(
  ctx: ConsoleContext,
  q: ListQuery,
): Promise<{ rows: OrchestrationRow[]; more: boolean }> {
  const listed = await ctx.sources.batch.list({
    limit: PAGE_SIZE + 1,
    skip: (q.page - 1) * PAGE_SIZE,
    ...(q.status ? { status: q.status } : {}),
  });
  const rows = await Promise.all(
    listed.slice(0, PAGE_SIZE).map(async (b): Promise<OrchestrationRow> => {
      const closeKey = b.closeTime ? `${b.workflowId}@${b.closeTime.getTime()}` : undefined;
      const view = await batchViewOf(ctx, b.batchId, closeKey).catch((err: Error): BatchView => ({
        workflowId: b.workflowId,
        workflowStatus: b.status,
        failure: err.message,
      }));
      return { kind: 'batch', id: b.batchId, startTime: b.startTime.getTime(), view };
    }),
  );
  return { rows, more: listed.length > PAGE_SIZE };
}

const detailHref = (r: Pick<OrchestrationRow, 'kind' | 'id'>): string =>
  `/${r.kind === 'pipeline' ? 'pipelines' : 'batches'}/${encodeURIComponent(r.id)}`;

/** One row's cells: id, kind, endpoint, status, progress, done/total, failed, rate, ETA, spend, started. */
function cells(r: OrchestrationRow, now: number): (Html | string | number | undefined)[] {
  const s = r.view.state;
  const status = s && r.view.workflowStatus === 'RUNNING' && s.phase !== 'running' ? s.phase : r.view.workflowStatus;
  return [
    h`<a href="${detailHref(r)}">${r.id}</a>`,
    r.kind,
    s?.endpointId,
    badge(status),
    s ? bar(s.counts.done, s.counts.total) : undefined,
    s
      ? `${num(s.counts.done)} / ${s.counts.total === undefined ? `${num(s.counts.read)}+` : num(s.counts.total)}`
      : undefined,
    s ? num(failedCount(s)) : undefined,
    s ? `${s.completeRate.toFixed(s.completeRate < 10 ? 1 : 0)}/s` : undefined,
    s?.eta !== undefined && r.view.workflowStatus === 'RUNNING' ? duration(s.eta - now) : undefined,
    s ? usd(s.spend) : undefined,
    time(r.startTime),
  ];
}

/** The table alone: what the live fragment refreshes. */
export function rowsTable(rows: OrchestrationRow[], now: number): Html {
  return table(
    ['id', 'kind', 'endpoint', 'status', 'progress', 'done / total', 'failed', 'rate', 'ETA', 'spend', 'started (UTC)'],
    rows.map((r) => cells(r, now)),
    'no batches here yet: start one with `sluice batch start`',
  );
}

/** The live table fragment of a query (refreshed every 2 s). */
export function listFragment(rows: OrchestrationRow[], q: ListQuery, now: number): Html {
  const url = href(q).replace('/batches', '/batches/rows');
  return live(url, 2, rowsTable(rows, now), 'batch-rows');
}

/** The whole page: filters, the live table, the pager. */
export function batchListPage(rows: OrchestrationRow[], q: ListQuery, more: boolean, now: number): Html {
  const filters = [undefined, ...STATUS_FILTERS].map(
    (s) =>
      h`<a href="${href({ ...(s ? { status: s } : {}), page: 1 })}" aria-current="${String(q.status === s)}">${s ?? 'all'}</a>`,
  );
  const pager = h`<p>${q.page > 1 ? h`<a href="${href({ ...q, page: q.page - 1 })}">← newer</a> ` : ''}page ${q.page}${more ? h` <a href="${href({ ...q, page: q.page + 1 })}">older →</a>` : ''}</p>`;
  return page({
    title: 'Batches and pipelines',
    section: '/batches',
    body: h`<p class="filters">Status: ${filters}</p>${listFragment(rows, q, now)}${pager}`,
  });
}
