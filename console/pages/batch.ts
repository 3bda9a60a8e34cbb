/** `/batches/:id`: one batch: counts by outcome, completions over time, failures by type, why it waits, options, results, actions. */
import { type BatchView } from '../../client/batch';
import { failedCount } from '../../client/batch-status';
import { type FailureGroup } from '../../client/batch-failures';
import { BATCH_OUTCOMES } from '../../contracts/names';
import { type SeriesBook } from '../series';
import { BATCH_SERIES } from '../context';
import { badge, bar, chart, duration, facts, h, live, num, page, table, time, usd, type Html } from '../html';

const base = (id: string): string => `/batches/${encodeURIComponent(id)}`;

/** What each wait reason means, in words. */
const WAITS: Record<string, string> = {
  'window-full': 'the concurrency window is full',
  'key-cap': 'a key reached its in-flight cap',
  'rate-budget': "the endpoint's submission budget is spent for now",
  priority: 'batches of higher priority go first',
  paused: 'paused',
  'cost-cap': 'the cost cap is reached',
  deadline: 'the deadline passed',
  'retry-backoff': 'retries wait for their backoff',
  'input-done': 'every input is read',
  'no-webhooks': 'polling: webhooks do not reach the daemon',
};

/** What the charts of batches and pipelines say they draw. */
export const CHART_CAPTION =
  'Completions and failures over time (inputs; rebuilt from the outcomes when the page opens, then sampled live)';

/** The live part: numbers, progress, chart, waits (refreshed every 2 s while the batch runs). */
export function batchLive(id: string, v: BatchView, series: SeriesBook, now: number): Html {
  const s = v.state;
  const running = v.workflowStatus === 'RUNNING';
  const status = s && running && s.phase !== 'running' ? s.phase : v.workflowStatus;
  const body = s
    ? h`<p>${badge(status)} ${bar(s.counts.done, s.counts.total)} ${num(s.counts.done)} of ${s.counts.total === undefined ? `${num(s.counts.read)}+ read` : num(s.counts.total)} done</p>
<div class="cards">
${card('in flight', num(s.counts.inFlight))}${card('failed', num(failedCount(s)))}${card('rate', `${s.completeRate.toFixed(1)}/s`)}${card('ETA', running && s.eta !== undefined ? duration(s.eta - now) : '–')}${card('spend', usd(s.spend))}${card('retries', num(s.counts.retries))}
</div>
<h2>Inputs by outcome</h2>
${table(
  ['outcome', 'inputs'],
  BATCH_OUTCOMES.map((o) => [o, num(s.counts.byStatus[o] ?? 0)]),
)}
${chart('batch-chart', CHART_CAPTION, series.chartData(`batch/${s.batchId}`, BATCH_SERIES))}
<h2>Waiting</h2>
${s.waiting.length ? h`<ul>${s.waiting.map((w) => h`<li><code>${w}</code>: ${WAITS[w] ?? w}</li>`)}</ul>` : h`<p class="muted">nothing: it submits as fast as it can</p>`}
${
  s.lastErrors.length
    ? h`<h2>Last errors</h2>${table(
        ['input', 'error'],
        s.lastErrors.map((e) => [num(e.index), h`<span class="wrap">${e.error}</span>`]),
      )}`
    : ''
}`
    : h`<p>${badge(v.workflowStatus)} <span class="muted">no state: no daemon answers for it</span></p>`;
  const failure = v.failure ? h`<p class="notice bad">${v.failure}</p>` : '';
  const inner = h`${failure}${body}`;
  return running ? live(`${base(id)}/live`, 2, inner, 'batch-live') : h`<div id="batch-live">${inner}</div>`;
}

export const card = (label: string, value: string): Html =>
  h`<div class="card"><span class="muted">${label}</span><b>${value}</b></div>`;

/** The actions a batch in this status takes (each asks for confirmation on its own page). */
export function batchActions(id: string, v: BatchView): Html {
  const phase = v.state?.phase;
  const acts: [string, string][] = [];
  if (v.workflowStatus === 'RUNNING') {
    acts.push(phase === 'paused' ? ['resume', 'Resume'] : ['pause', 'Pause']);
    acts.push(['cancel', 'Cancel']);
  } else if (v.state && failedCount(v.state) > 0) acts.push(['rerun', 'Rerun failed inputs']);
  if (acts.length === 0) return h``;
  return h`<p class="actions">${acts.map(([a, label]) => h`<a class="button" href="${base(id)}/${a}">${label}</a> `)}</p>`;
}

/** The failures fragment: groups by error type, each with examples and their input lines. */
export function failuresView(groups: FailureGroup[]): Html {
  if (groups.length === 0) return h`<p class="muted">no failed inputs</p>`;
  return h`${groups.map(
    (
      g,
    ) => h`<h3>${g.stage === undefined ? '' : h`<span class="muted">at</span> ${g.stage} · `}${g.type} <span class="muted">(${num(g.count)} inputs)</span></h3>
${table(
  ['input', 'outcome', 'error', 'attempts', 'remote jobs', 'input line'],
  g.examples.map((e) => [
    num(e.index),
    badge(e.status),
    h`<span class="wrap">${e.error ?? ''}</span>`,
    e.attempts,
    e.remoteJobIds.join(' '),
    e.input === undefined ? undefined : h`<pre>${e.input}</pre>`,
  ]),
)}`,
  )}`;
}

/** The whole page; the failures load in their own request (they read the outcomes: never on the page's first byte). */
export function batchPage(id: string, v: BatchView, series: SeriesBook, now: number): Html {
  const s = v.state;
  const options = s
    ? facts([
        ['endpoint', h`<a href="/endpoints/${encodeURIComponent(s.endpointId)}">${s.endpointId}</a>`],
        ['concurrency', s.options.concurrency],
        ['key limit', s.options.keyLimit],
        ['cost cap', s.options.maxCost === undefined ? undefined : usd(s.options.maxCost)],
        ['deadline', s.options.deadline === undefined ? undefined : time(s.options.deadline)],
        ['price per worker-hour', s.pricePerHour === undefined ? undefined : usd(s.pricePerHour)],
        ['started', time(s.startedAt)],
        ['ended', s.endedAt === undefined ? undefined : time(s.endedAt)],
        ['runs', s.runs],
        ['rerun', s.retry ? `attempt ${s.retry.attempt} of ${s.retry.of}, ${num(s.retry.inputs)} inputs` : undefined],
        ['results', s.outDir],
      ])
    : '';
  return page({
    title: `Batch ${id}`,
    section: '/batches',
    charts: true,
    body: h`${batchActions(id, v)}${batchLive(id, v, series, now)}
<h2>Failures by error type</h2>
<div id="batch-failures" hx-get="${base(id)}/failures" hx-trigger="load" hx-swap="innerHTML"><p class="muted">reading the outcomes…</p>
<noscript><a href="${base(id)}/failures">the failures</a></noscript></div>
<h2>Options and results</h2>${options}
<p class="muted">Workflow <code>${v.workflowId}</code></p>`,
  });
}
