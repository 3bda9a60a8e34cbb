/** `/endpoints` and `/endpoints/:id`: each endpoint's health, workers by state, delay and execution times, recent jobs. */
import { type JobListing } from '../../client/job';
import { type EndpointView, type Health } from '../../contracts';
import { badge, facts, h, live, num, page, table, time, type Html } from '../html';

/** One endpoint with its health (absent when `/health` did not answer: then `error` says why). */
export interface EndpointRow {
  endpoint: Pick<EndpointView, 'id' | 'name' | 'workersMin' | 'workersMax'>;
  health?: Health;
  error?: string;
}

/** One recent job of the endpoint, with its times when it ended (from its result). */
export interface RecentJob extends JobListing {
  delayTime?: number;
  executionTime?: number;
  /** Its page in the Temporal Web UI. */
  temporalUrl?: string;
}

const ref = (id: string): string => `/endpoints/${encodeURIComponent(id)}`;

/** Workers by state, in words. */
const workers = (hl: Health | undefined): string | undefined =>
  hl
    ? `${hl.workers.running} running, ${hl.workers.idle} idle, ${hl.workers.initializing ?? 0} starting${hl.workers.unhealthy ? `, ${hl.workers.unhealthy} unhealthy` : ''}${hl.workers.throttled ? `, ${hl.workers.throttled} throttled` : ''}`
    : undefined;

/** The list: one row per endpoint (without the service configured, says so). */
export function endpointListPage(rows: EndpointRow[] | undefined): Html {
  const body = rows
    ? table(
        ['endpoint', 'id', 'health', 'workersMin – Max', 'workers', 'queued', 'in progress', 'completed', 'failed'],
        rows.map((r) => [
          h`<a href="${ref(r.endpoint.id)}">${r.endpoint.name}</a>`,
          r.endpoint.id,
          badge(r.health ? 'ok' : 'unhealthy'),
          `${r.endpoint.workersMin} – ${r.endpoint.workersMax}`,
          workers(r.health) ?? r.error,
          r.health?.jobs.inQueue,
          r.health?.jobs.inProgress,
          r.health ? num(r.health.jobs.completed) : undefined,
          r.health ? num(r.health.jobs.failed) : undefined,
        ]),
        'no endpoints',
      )
    : h`<p class="notice">No service configured: set SLUICE_GRAPHQL_URL, SLUICE_QUEUE_URL and SLUICE_API_KEY (or run \`sluice dev\`).</p>`;
  return page({ title: 'Endpoints', section: '/endpoints', body });
}

/** Mean of the defined values, in ms. */
const mean = (xs: (number | undefined)[]): number | undefined => {
  const d = xs.filter((x): x is number => x !== undefined);
  return d.length ? d.reduce((a, b) => a + b, 0) / d.length : undefined;
};

/** The live part of an endpoint's page: health, workers, times, recent jobs (refreshed every 2 s). */
export function endpointLive(row: EndpointRow, jobs: RecentJob[]): Html {
  const hl = row.health;
  return live(
    `${ref(row.endpoint.id)}/live`,
    2,
    h`${row.error ? h`<p class="notice bad">/health: ${row.error}</p>` : ''}
${facts([
  ['health', badge(hl ? 'ok' : 'unhealthy')],
  ['workers', workers(hl)],
  ['bounds', `workersMin ${row.endpoint.workersMin}, workersMax ${row.endpoint.workersMax}`],
  [
    'jobs',
    hl
      ? `${hl.jobs.inQueue} queued, ${hl.jobs.inProgress} in progress, ${num(hl.jobs.completed)} completed, ${num(hl.jobs.failed)} failed, ${num(hl.jobs.retried)} retried`
      : undefined,
  ],
  ['mean delay (recent jobs)', fmtMs(mean(jobs.map((j) => j.delayTime)))],
  ['mean execution (recent jobs)', fmtMs(mean(jobs.map((j) => j.executionTime)))],
])}
<h2>Recent jobs</h2>
${table(
  ['job', 'status', 'started (UTC)', 'delay', 'execution', 'Temporal'],
  jobs.map((j) => [
    h`<a href="/jobs/${encodeURIComponent(j.workflowId)}">${j.workflowId}</a>`,
    badge(j.status),
    time(j.startTime.getTime()),
    fmtMs(j.delayTime),
    fmtMs(j.executionTime),
    j.temporalUrl ? h`<a href="${j.temporalUrl}">workflow</a>` : undefined,
  ]),
  'no recent job workflows of this endpoint (jobs started by `sluice run` or the library)',
)}`,
    'endpoint-live',
  );
}

const fmtMs = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : `${Math.round(ms)} ms`);

/** The whole page of an endpoint. */
export function endpointPage(row: EndpointRow, jobs: RecentJob[]): Html {
  return page({
    title: `Endpoint ${row.endpoint.name}`,
    section: '/endpoints',
    body: h`<p><a href="/scalers/${encodeURIComponent(row.endpoint.id)}">its scaler</a> · id <code>${row.endpoint.id}</code></p>${endpointLive(row, jobs)}`,
  });
}
