/** `/batches`: the batches and pipelines in one list, newest first, with filters (status, kind) and pages, refreshed live. */
import { type BatchView } from '../../client/batch';
import { failedCount } from '../../client/batch-status';
import { type PipelineView } from '../../client/pipeline';
import { pipelineFigures } from '../../client/pipeline-status';
import { type ConsoleContext, batchViewOf, pipelineViewOf } from '../context';
import { badge, bar, duration, h, live, num, page, table, time, usd, type Html } from '../html';

/** Rows per page. */
export const PAGE_SIZE = 20;

/** The statuses the list filters on (Temporal's workflow statuses). */
export const STATUS_FILTERS = ['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'TIMED_OUT'] as const;

/** The kinds the list filters on. */
export const KIND_FILTERS = ['batch', 'pipeline'] as const;

/** One row: a batch (its route /batches/:id) or a pipeline (/pipelines/:id). */
export type OrchestrationRow =
  | { kind: 'batch'; id: string; startTime: number; view: BatchView }
  | { kind: 'pipeline'; id: string; startTime: number; view: PipelineView };

/** The list's query: a status and a kind filter and a page number (from 1). */
export interface ListQuery {
  status?: string;
  kind?: (typeof KIND_FILTERS)[number];
  page: number;
}

/** Reads a query string's filters and page; anything unknown is ignored. */
export function listQuery(q: Record<string, string | undefined>): ListQuery {
  const status = STATUS_FILTERS.find((s) => s === q.status);
  const kind = KIND_FILTERS.find((k) => k === q.kind);
  const n = Number(q.page);
  return { ...(status ? { status } : {}), ...(kind ? { kind } : {}), page: Number.isInteger(n) && n > 0 ? n : 1 };
}

const href = (q: ListQuery): string => {
  const p = new URLSearchParams();
  if (q.status) p.set('status', q.status);
  if (q.kind) p.set('kind', q.kind);
  if (q.page > 1) p.set('page', String(q.page));
  const s = p.toString();
  return s ? `/batches?${s}` : '/batches';
};

const closeKeyOf = (l: { workflowId: string; closeTime?: Date }): string | undefined =>
  l.closeTime ? `${l.workflowId}@${l.closeTime.getTime()}` : undefined;

/**
 * The rows of one page, newest first: the first `page` pages of each kind asked for (one more row
 * to know whether a next page exists), merged by start time; the stages' own batches are left out
 * (their pipeline's page shows them).
 */
export async function loadRows(
  ctx: ConsoleContext,
  q: ListQuery,
): Promise<{ rows: OrchestrationRow[]; more: boolean }> {
  const want = q.page * PAGE_SIZE + 1;
  const o = { limit: want, ...(q.status ? { status: q.status } : {}) };
  const [batches, pipelines] = await Promise.all([
    q.kind === 'pipeline' ? [] : ctx.sources.batch.list({ ...o, stages: false }),
    q.kind === 'batch' ? [] : ctx.sources.pipeline.list(o),
  ]);
  const listed = [
    ...batches.map((b) => ({ kind: 'batch' as const, id: b.batchId, l: b })),
    ...pipelines.map((p) => ({ kind: 'pipeline' as const, id: p.pipelineId, l: p })),
  ].sort((a, b) => b.l.startTime.getTime() - a.l.startTime.getTime());
  const shown = listed.slice((q.page - 1) * PAGE_SIZE, q.page * PAGE_SIZE);
  const rows = await Promise.all(
    shown.map(async ({ kind, id, l }): Promise<OrchestrationRow> => {
      const failed = (err: Error) => ({ workflowId: l.workflowId, workflowStatus: l.status, failure: err.message });
      const startTime = l.startTime.getTime();
      if (kind === 'pipeline') {
        const view = await pipelineViewOf(ctx, id, closeKeyOf(l)).catch(failed);
        return { kind, id, startTime, view };
      }
      return { kind, id, startTime, view: await batchViewOf(ctx, id, closeKeyOf(l)).catch(failed) };
    }),
  );
  return { rows, more: listed.length > q.page * PAGE_SIZE };
}

const detailHref = (r: Pick<OrchestrationRow, 'kind' | 'id'>): string =>
  `/${r.kind === 'pipeline' ? 'pipelines' : 'batches'}/${encodeURIComponent(r.id)}`;

/** What a row shows of a batch or a pipeline. */
interface RowFigures {
  phase: string;
  where: string;
  done: number;
  total?: number;
  read: number;
  failed: number;
  rate: number;
  eta?: number;
  spend: number;
}

function figures(r: OrchestrationRow, now: number): RowFigures | undefined {
  if (r.kind === 'batch') {
    const s = r.view.state;
    if (!s) return undefined;
    const { done, total, read } = s.counts;
    const eta = s.eta;
    return {
      phase: s.phase,
      where: s.endpointId,
      done,
      ...(total !== undefined ? { total } : {}),
      read,
      failed: failedCount(s),
      rate: s.completeRate,
      ...(eta !== undefined ? { eta } : {}),
      spend: s.spend,
    };
  }
  const s = r.view.state;
  if (!s) return undefined;
  const f = pipelineFigures(s, now);
  const { done, total, read } = s.counts;
  return {
    phase: s.phase,
    where: s.stages.map((st) => st.name).join(' → '),
    done,
    ...(total !== undefined ? { total } : {}),
    read,
    ...f,
  };
}

/** One row's cells: id, kind, endpoint or stages, status, progress, done/total, failed, rate, ETA, spend, started. */
function cells(r: OrchestrationRow, now: number): (Html | string | number | undefined)[] {
  const f = figures(r, now);
  const running = r.view.workflowStatus === 'RUNNING';
  const status = f && running && f.phase !== 'running' ? f.phase : r.view.workflowStatus;
  return [
    h`<a href="${detailHref(r)}">${r.id}</a>`,
    r.kind,
    f?.where,
    badge(status),
    f ? bar(f.done, f.total) : undefined,
    f ? `${num(f.done)} / ${f.total === undefined ? `${num(f.read)}+` : num(f.total)}` : undefined,
    f ? num(f.failed) : undefined,
    f ? `${f.rate.toFixed(f.rate < 10 ? 1 : 0)}/s` : undefined,
    f?.eta !== undefined && running ? duration(f.eta - now) : undefined,
    f ? usd(f.spend) : undefined,
    time(r.startTime),
  ];
}

/** The table alone: what the live fragment refreshes. */
export function rowsTable(rows: OrchestrationRow[], now: number): Html {
  return table(
    [
      'id',
      'kind',
      'endpoint / stages',
      'status',
      'progress',
      'done / total',
      'failed',
      'rate',
      'ETA',
      'spend',
      'started (UTC)',
    ],
    rows.map((r) => cells(r, now)),
    'nothing here yet: start one with `sluice batch start` or `sluice pipeline start`',
  );
}

/** The live table fragment of a query (refreshed every 2 s). */
export function listFragment(rows: OrchestrationRow[], q: ListQuery, now: number): Html {
  const url = href(q).replace('/batches', '/batches/rows');
  return live(url, 2, rowsTable(rows, now), 'batch-rows');
}

/** The whole page: filters, the live table, the pager. */
export function batchListPage(rows: OrchestrationRow[], q: ListQuery, more: boolean, now: number): Html {
  const statuses = [undefined, ...STATUS_FILTERS].map(
    (s) =>
      h`<a href="${href({ ...q, status: s, page: 1 })}" aria-current="${String(q.status === s)}">${s ?? 'all'}</a>`,
  );
  const kinds = [undefined, ...KIND_FILTERS].map(
    (k) => h`<a href="${href({ ...q, kind: k, page: 1 })}" aria-current="${String(q.kind === k)}">${k ?? 'all'}</a>`,
  );
  const pager = h`<p>${q.page > 1 ? h`<a href="${href({ ...q, page: q.page - 1 })}">← newer</a> ` : ''}page ${q.page}${more ? h` <a href="${href({ ...q, page: q.page + 1 })}">older →</a>` : ''}</p>`;
  return page({
    title: 'Batches and pipelines',
    section: '/batches',
    body: h`<p class="filters">Status: ${statuses}</p><p class="filters">Kind: ${kinds}</p>${listFragment(rows, q, now)}${pager}`,
  });
}
