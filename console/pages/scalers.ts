/** `/scalers` and `/scalers/:endpoint`: each endpoint's scaler: bounds and load over time, its decisions and why, override, pause, schedules. */
import { type ScalerView } from '../../client/scaler';
import { type ScalerScheduleView } from '../../contracts';
import { type ConsoleContext } from '../context';
import { badge, chart, facts, h, live, num, page, table, time, usd, type Html } from '../html';
import { type SeriesBook } from '../series';

/** The series of a scaler's chart. */
export const SCALER_SERIES = ['workersMin', 'workersMax', 'queued', 'in progress', 'workers'];

const base = (endpointId: string): string => `/scalers/${encodeURIComponent(endpointId)}`;

/** Records a scaler's sample: its bounds and its endpoint's load. */
export function sampleScaler(ctx: ConsoleContext, v: ScalerView): void {
  const s = v.state;
  if (!s) return;
  const l = s.load;
  const key = `scaler/${s.endpointId}`;
  // A first look: the decision log holds the bounds over the recent past.
  if (ctx.series.samples(key).length === 0)
    for (const d of s.decisions)
      ctx.series.record(key, d.at, { workersMin: d.bounds.workersMin, workersMax: d.bounds.workersMax });
  ctx.series.record(key, ctx.now(), {
    workersMin: s.bounds?.workersMin ?? null,
    workersMax: s.bounds?.workersMax ?? null,
    queued: l?.inQueue ?? null,
    'in progress': l?.inProgress ?? null,
    workers: l ? l.running + l.idle + l.initializing : null,
  });
}

/** The list: one row per scaler. */
export function scalerListPage(
  rows: { endpointId: string; status: string; startTime: Date; view?: ScalerView }[],
): Html {
  return page({
    title: 'Scalers',
    section: '/scalers',
    body: table(
      [
        'endpoint',
        'status',
        'phase',
        'workersMin',
        'workersMax',
        'target',
        'queued',
        'in progress',
        'last decision',
        'started (UTC)',
      ],
      rows.map((r) => {
        const s = r.view?.state;
        const last = s?.decisions.at(-1);
        return [
          h`<a href="${base(r.endpointId)}">${r.endpointId}</a>`,
          badge(r.status),
          s?.phase,
          s?.bounds?.workersMin,
          s?.bounds?.workersMax,
          s?.target,
          s?.load?.inQueue,
          s?.load?.inProgress,
          last ? h`<span class="wrap">${last.kind}: ${last.reason}</span>` : undefined,
          time(r.startTime.getTime()),
        ];
      }),
      'no scalers yet: start one with `sluice scaler start ENDPOINT`',
    ),
  });
}

/** The live part: numbers, chart and decision log (refreshed every 2 s while the scaler runs). */
export function scalerLive(endpointId: string, v: ScalerView, series: SeriesBook): Html {
  const s = v.state;
  const running = v.workflowStatus === 'RUNNING';
  const inner = s
    ? h`<p>${badge(v.workflowStatus)} phase <b>${s.phase}</b>${s.fallbackActive ? h` <span class="badge bad">fallback</span>` : ''}${s.spendCapBinding ? h` <span class="badge bad">spend cap binding</span>` : ''}</p>
${facts([
  ['bounds', s.bounds ? `${s.bounds.workersMin} – ${s.bounds.workersMax}` : undefined],
  ['target', s.target],
  [
    'load',
    s.load
      ? `${s.load.inQueue} queued, ${s.load.inProgress} in progress, ${s.load.running} running, ${s.load.idle} idle, ${s.load.initializing} starting`
      : undefined,
  ],
  [
    'override',
    s.override ? `${s.override.workersMin} – ${s.override.workersMax} until ${time(s.override.until)}` : undefined,
  ],
  [
    'window',
    s.window
      ? `floor ${s.window.floor ?? '–'}, ceiling ${s.window.ceiling ?? '–'}${s.window.until ? ` until ${time(s.window.until)}` : ''}${s.window.source ? ` (${s.window.source})` : ''}`
      : undefined,
  ],
  [
    'backlogs',
    s.backlogs.length ? s.backlogs.map((b) => `${b.source}: ${num(b.remaining)} remaining`).join('; ') : undefined,
  ],
  ['writes', `${num(s.writes)}${s.lastWriteAt ? `, last ${time(s.lastWriteAt)}` : ''}`],
  ['ticks', num(s.ticks)],
])}
${chart('scaler-chart', 'Bounds and load over time (sampled while this console watches)', series.chartData(`scaler/${endpointId}`, SCALER_SERIES, ['workersMin', 'workersMax']))}
<h2>Decisions</h2>
${table(
  ['time (UTC)', 'kind', 'reason', 'bounds', 'target', 'written'],
  [...s.decisions]
    .reverse()
    .map((d) => [
      time(d.at),
      d.kind,
      h`<span class="wrap">${d.reason}</span>`,
      `${d.bounds.workersMin} – ${d.bounds.workersMax}`,
      d.target,
      d.write ? 'yes' : 'no',
    ]),
  'no decisions yet',
)}`
    : h`<p>${badge(v.workflowStatus)} <span class="muted">no state: no daemon answers for it</span></p>`;
  const failure = v.failure ? h`<p class="notice bad">${v.failure}</p>` : '';
  const body = h`${failure}${inner}`;
  return running ? live(`${base(endpointId)}/live`, 2, body, 'scaler-live') : h`<div id="scaler-live">${body}</div>`;
}

/** The whole page: actions, live part, schedules, settings. */
export function scalerPage(
  endpointId: string,
  v: ScalerView,
  schedules: ScalerScheduleView[],
  series: SeriesBook,
): Html {
  const s = v.state;
  const acts: [string, string][] = [];
  if (v.workflowStatus === 'RUNNING') {
    acts.push(s?.phase === 'paused' ? ['resume', 'Resume'] : ['pause', 'Pause']);
    acts.push(['override', 'Override']);
    if (s?.override) acts.push(['clear-override', 'Clear override']);
  }
  const c = s?.config;
  return page({
    title: `Scaler of ${endpointId}`,
    section: '/scalers',
    charts: true,
    body: h`<p class="actions">${acts.map(([a, l]) => h`<a class="button" href="${base(endpointId)}/${a}">${l}</a> `)}<a href="/endpoints/${encodeURIComponent(endpointId)}">the endpoint</a></p>
${scalerLive(endpointId, v, series)}
<h2>Schedules</h2>
${table(
  ['name', 'when', 'time zone', 'min', 'max', 'next', 'paused'],
  schedules.map((x) => [
    x.name,
    x.cron ?? `${x.at ?? ''} ${x.days ?? ''}`,
    x.timezone,
    x.min,
    x.max,
    x.next[0],
    x.paused ? 'yes' : 'no',
  ]),
  'no schedules: add one with `sluice scaler schedule add`',
)}
<h2>Settings</h2>
${
  c
    ? facts([
        ['floor – ceiling', `${c.floor} – ${c.ceiling}`],
        ['target per worker', c.targetPerWorker],
        ['max spend per hour', c.maxSpendPerHour === undefined ? undefined : usd(c.maxSpendPerHour)],
        ['interval', `${c.intervalMs} ms`],
        ['stabilization window', `${c.stabilizationWindowMs} ms`],
        ['cooldown', `${c.cooldownMs} ms`],
      ])
    : ''
}`,
  });
}
