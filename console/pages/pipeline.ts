/** `/pipelines/:id`: one pipeline: its stages as a diagram with counts on each, inputs by outcome, completions over time, failures by stage and error type, actions. */
import { batchIdOf, PIPELINE_OUTCOMES, type PipelineStageState } from '../../contracts';
import { type PipelineView } from '../../client/pipeline';
import { pipelineFigures, type PipelineEnded } from '../../client/pipeline-status';
import { type SeriesBook } from '../series';
import { BATCH_SERIES } from '../context';
import { badge, bar, chart, duration, facts, h, live, num, page, table, time, usd, type Html } from '../html';
import { CHART_CAPTION, card, failuresView } from './batch';

const base = (id: string): string => `/pipelines/${encodeURIComponent(id)}`;

/** Skipped inputs per stage, as the last pass over the outcomes counted them (none before it). */
export type SkippedByStage = Record<string, number> | undefined;

/** One stage's box: its endpoint and batch, the inputs here, and its jobs done, in flight, failed, skipped. */
function stageBox(st: PipelineStageState, skipped: SkippedByStage): Html {
  const b = st.batch;
  const failed = b ? b.counts.done - (b.counts.byStatus.COMPLETED ?? 0) : undefined;
  const batch = batchIdOf(st.batchId);
  return h`<li><div class="stage" data-stage="${st.name}"><h3>${st.name}</h3>
<p class="muted"><a href="/endpoints/${encodeURIComponent(st.endpointId)}">${st.endpointId}</a> · <a href="/batches/${encodeURIComponent(batch)}">its batch</a></p>
<dl><dt>inputs here</dt><dd>${num(st.active)}</dd><dt>jobs fed</dt><dd>${num(st.fed)}</dd>
<dt>done</dt><dd>${num(b?.counts.done)}</dd><dt>in flight</dt><dd>${num(b?.counts.inFlight)}</dd>
<dt>failed</dt><dd>${num(failed)}</dd><dt>skipped</dt><dd>${skipped ? num(skipped[st.name] ?? 0) : '–'}</dd>
<dt>spend</dt><dd>${b ? usd(b.spend) : '–'}</dd></dl>
${b ? bar(b.counts.done, st.closed ? st.fed : undefined) : ''}${st.closed ? h` <span class="muted">feed closed</span>` : ''}</div></li>`;
}

/** The live part: numbers, the stage diagram, outcomes, chart (refreshed every 2 s while it runs). */
export function pipelineLive(
  id: string,
  v: PipelineView,
  series: SeriesBook,
  skipped: SkippedByStage,
  now: number,
): Html {
  const s = v.state;
  const running = v.workflowStatus === 'RUNNING';
  const status = s && running && s.phase !== 'running' ? s.phase : v.workflowStatus;
  let body: Html;
  if (s) {
    const f = pipelineFigures(s, now);
    const total = s.counts.total === undefined ? `${num(s.counts.read)}+ read` : num(s.counts.total);
    body = h`<p>${badge(status)} ${bar(s.counts.done, s.counts.total)} ${num(s.counts.done)} of ${total} inputs done</p>
<div class="cards">
${card('in flight', num(s.counts.inFlight))}${card('failed', num(f.failed))}${card('skipped', num(s.counts.byStatus.SKIPPED ?? 0))}${card('rate', `${f.rate.toFixed(1)}/s`)}${card('ETA', running && f.eta !== undefined ? duration(f.eta - now) : '–')}${card('spend', usd(f.spend))}
</div>
<h2>Stages</h2>
<ol class="stages" aria-label="stages">${s.stages.map((st) => stageBox(st, skipped))}</ol>
${skipped ? '' : h`<p class="muted">skipped per stage: counted with the failures below</p>`}
<h2>Inputs by outcome</h2>
${table(
  ['outcome', 'inputs'],
  PIPELINE_OUTCOMES.map((o) => [o, num(s.counts.byStatus[o] ?? 0)]),
)}
${chart('pipeline-chart', CHART_CAPTION, series.chartData(`pipeline/${s.pipelineId}`, BATCH_SERIES))}`;
  } else body = h`<p>${badge(v.workflowStatus)} <span class="muted">no state: no daemon answers for it</span></p>`;
  return running ? live(`${base(id)}/live`, 2, body, 'pipeline-live') : h`<div id="pipeline-live">${body}</div>`;
}

/** The actions a pipeline in this status takes (each asks for confirmation on its own page). */
export function pipelineActions(id: string, v: PipelineView): Html {
  const acts: [string, string][] = [];
  if (v.workflowStatus === 'RUNNING') {
    acts.push(v.state?.phase === 'paused' ? ['resume', 'Resume'] : ['pause', 'Pause']);
    acts.push(['cancel', 'Cancel']);
  } else if (v.state && (v.state.counts.byStatus.FAILED ?? 0) > 0) acts.push(['rerun', 'Retry failed inputs']);
  if (acts.length === 0) return h``;
  return h`<p class="actions">${acts.map(([a, label]) => h`<a class="button" href="${base(id)}/${a}">${label}</a> `)}</p>`;
}

/** The outcomes fragment: inputs that stopped at each stage by outcome, then the failures by stage and error type. */
export function pipelineEndedView(e: PipelineEnded): Html {
  const stages = Object.entries(e.byStage);
  const statuses = PIPELINE_OUTCOMES.filter((o) => o !== 'COMPLETED');
  const stopped = stages.length
    ? table(
        ['stage', ...statuses],
        stages.map(([stage, by]) => [stage, ...statuses.map((o) => num(by[o] ?? 0))]),
      )
    : h`<p class="muted">no input stopped before the end</p>`;
  return h`<h3>Inputs that stopped, by stage</h3>${stopped}<h3>Failures by stage and error type</h3>${failuresView(e.failures)}`;
}

/** The whole page; the outcomes load in their own request (they read the result lines: never on the page's first byte). */
export function pipelinePage(
  id: string,
  v: PipelineView,
  series: SeriesBook,
  skipped: SkippedByStage,
  now: number,
): Html {
  const s = v.state;
  const about = s
    ? facts([
        ['name', s.name],
        ['stages', s.stages.map((st) => st.name).join(' → ')],
        ['started', time(s.startedAt)],
        ['ended', s.endedAt === undefined ? undefined : time(s.endedAt)],
        ['runs', s.runs],
        ['input file read', s.inputDone ? 'all' : 'not yet'],
        ['results', s.outDir],
      ])
    : '';
  return page({
    title: `Pipeline ${id}`,
    section: '/batches',
    charts: true,
    body: h`${pipelineActions(id, v)}${pipelineLive(id, v, series, skipped, now)}
<h2>Where inputs stopped</h2>
<div id="pipeline-failures" hx-get="${base(id)}/failures" hx-trigger="load" hx-swap="innerHTML"><p class="muted">reading the outcomes…</p>
<noscript><a href="${base(id)}/failures">the failures</a></noscript></div>
<h2>About</h2>${about}
<p class="muted">Workflow <code>${v.workflowId}</code></p>`,
  });
}
