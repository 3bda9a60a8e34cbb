/** How the scaler commands show a scaler to people: exit codes, the status table with the last decisions, the one-line view of `watch`. */
import { type Decision, type ScalerScheduleView, type ScalerState } from '../../../contracts';
import { type ScalerView } from '../../scaler';
import { duration } from '../batch/output';
import { EXIT_CODES } from '../exit-codes';
import { tableLines } from '../tables';

/** Exit codes of `sluice scaler status|watch`, for their help and docs/cli.md. */
export const SCALER_EXIT_HELP =
  'Exit code: 0 the scaler runs (or is paused); 1 it failed or was terminated; 2 usage (unknown endpoint, no scaler for it); 3 it was stopped (bounds restored).';
/** Exit codes of the commands that change a scaler. */
export const SCALER_CONTROL_EXIT_HELP =
  'Exit code: 0 done; 1 the scaler had already ended; 2 usage (bad input, unknown endpoint, no scaler for it).';

/** 0 while the scaler runs, 3 once stopped (cancelled), 1 when it ended otherwise. */
export function scalerExitCode(v: ScalerView): number {
  if (v.workflowStatus === 'RUNNING') return EXIT_CODES.ok;
  if (v.workflowStatus === 'CANCELLED') return EXIT_CODES.cancelled;
  return EXIT_CODES.failed;
}

const clock = (ms: number): string => new Date(ms).toISOString().slice(11, 19);
const range = (b: { workersMin: number; workersMax: number } | undefined): string =>
  b ? `${b.workersMin}..${b.workersMax}` : '-';
const when = (until: number, now: number): string => `${new Date(until).toISOString()} (in ${duration(until - now)})`;
const ms = (n: number): string => (n % 1000 === 0 ? duration(n) : `${n} ms`);

/** The load of the last sample: jobs and workers, or why the sample failed. */
export function loadText(s: ScalerState): string {
  const l = s.load;
  if (!l) return '-';
  if (!l.ok) return `sample failed: ${l.error ?? 'unknown'} (${s.healthFailures} in a row)`;
  return `${l.inQueue} queued  ${l.inProgress} in progress  workers ${l.running} busy  ${l.idle} idle  ${l.initializing} starting  (${clock(l.at)})`;
}

function configText(s: ScalerState): string {
  const c = s.config;
  return [
    `floor ${c.floor}  ceiling ${c.ceiling}`,
    c.targetQueueDelayMs !== undefined ? `queue delay ${ms(c.targetQueueDelayMs)}` : `${c.targetPerWorker}/worker`,
    `interval ${ms(c.intervalMs)}`,
    `window ${ms(c.stabilizationWindowMs)}`,
    `cooldown ${ms(c.cooldownMs)}`,
    ...(c.warmHoldMs !== undefined ? [`warm hold ${c.warmHoldMs === 0 ? '0' : ms(c.warmHoldMs)}`] : []),
    `drift ${c.drift}`,
    c.maxSpendPerHour !== undefined ? `spend cap $${c.maxSpendPerHour}/h` : 'no spend cap',
  ].join('  ');
}

/** The last `n` decisions as a table: time, tick, kind, bounds, written, reason. */
export function decisionsTable(decisions: Decision[], n: number): string[] {
  const rows = decisions
    .slice(-n)
    .map((d) => [
      clock(d.at),
      d.tick === undefined ? '-' : String(d.tick),
      d.kind,
      range(d.bounds),
      d.write ? 'yes' : 'no',
      d.reason,
    ]);
  if (rows.length === 0) return ['  (none yet)'];
  const all = [['TIME', 'TICK', 'KIND', 'BOUNDS', 'WRITE', 'REASON'], ...rows];
  return tableLines(all, '  ');
}

/** When a schedule fires, in words. */
export const whenText = (v: ScalerScheduleView): string =>
  v.at !== undefined ? `at ${v.at}${v.days ? ` ${v.days}` : ' daily'}` : `cron ${v.cron ?? '?'}`;

/** Scaler schedules as a table (`scaler schedule list`, and `scaler status` under its endpoint's scaler). */
export function schedulesTable(views: ScalerScheduleView[], o: { endpoint?: boolean; indent?: string } = {}): string[] {
  const head = [
    'SCHEDULE',
    ...(o.endpoint === false ? [] : ['ENDPOINT']),
    'NAME',
    'WHEN',
    'TZ',
    'BOUNDS',
    'STATE',
    'NEXT',
    'LAST',
  ];
  const rows = [
    head,
    ...views.map((v) => [
      v.scheduleId,
      ...(o.endpoint === false ? [] : [v.endpointId]),
      v.name,
      whenText(v),
      v.timezone,
      `${v.min}..${v.max}${v.forMs ? ` for ${duration(v.forMs)}` : ''}`,
      v.paused ? `paused${v.note ? ` (${v.note})` : ''}` : v.until ? `until ${v.until}` : 'active',
      v.next[0] ?? '-',
      v.recent.at(-1)?.at ?? '-',
    ]),
  ];
  return tableLines(rows, o.indent);
}

/** The status table of `sluice scaler status` (and `watch` on a terminal); with `schedules`, the endpoint's schedules below the decisions. */
export function scalerTable(
  v: ScalerView,
  o: { decisions?: number; now?: number; schedules?: ScalerScheduleView[] } = {},
): string {
  const now = o.now ?? Date.now();
  const s = v.state;
  const rows: [string, string][] = [
    ['scaler', v.workflowId],
    ['workflow', v.workflowStatus],
  ];
  if (v.failure) rows.push(['failure', v.failure]);
  if (!s) {
    rows.push(['live state', 'unknown: no daemon answers (is `sluice dev` or `sluice worker` running?)']);
    return rows.map(([k, x]) => `${k.padEnd(12)}${x}`).join('\n');
  }
  rows.push(
    ['endpoint', s.endpointId],
    ['phase', s.phase],
    ['bounds', `${range(s.bounds)}  target ${s.target}  (found ${range(s.found)}: restored on stop)`],
    ['load', loadText(s)],
    ['config', configText(s)],
    [
      'override',
      s.override ? `${s.override.workersMin}..${s.override.workersMax} until ${when(s.override.until, now)}` : '-',
    ],
    [
      'window',
      s.window
        ? `floor ${s.window.floor ?? '-'}  ceiling ${s.window.ceiling ?? '-'}${s.window.until ? `  until ${when(s.window.until, now)}` : ''}${s.window.source ? `  from ${s.window.source}` : ''}`
        : '-',
    ],
    [
      'backlogs',
      s.backlogs.length
        ? s.backlogs
            .map(
              (b) =>
                `${b.source}: ${b.remaining} left, ${b.jobMs} ms/job${b.deadline ? `, deadline ${new Date(b.deadline).toISOString()}` : ''}`,
            )
            .join('; ')
        : '-',
    ],
    [
      'fallback',
      s.fallbackActive
        ? `ACTIVE after ${s.healthFailures} failed samples`
        : `off (${s.healthFailures} failed samples in a row)`,
    ],
    [
      'spend',
      `${s.pricePerHour !== undefined ? `$${s.pricePerHour}/worker-hour` : 'price unknown'}${s.spendCapBinding ? '  the spend cap binds' : ''}`,
    ],
    [
      'activity',
      `${s.ticks} ticks  ${s.writes} writes${s.lastWriteAt ? ` (last ${clock(s.lastWriteAt)})` : ''}  runs ${s.runs}  up ${duration(now - s.startedAt)}`,
    ],
  );
  const head = rows.map(([k, x]) => `${k.padEnd(12)}${x}`);
  const schedules =
    o.schedules === undefined
      ? []
      : o.schedules.length === 0
        ? ['schedules   none (sluice scaler schedule add adds one)']
        : [
            'schedules   (they set the floor and ceiling when they fire)',
            ...schedulesTable(o.schedules, { endpoint: false, indent: '  ' }),
          ];
  return [
    ...head,
    `decisions   (the last ${Math.min(o.decisions ?? 8, s.decisions.length)}, newest last)`,
    ...decisionsTable(s.decisions, o.decisions ?? 8),
    ...schedules,
  ].join('\n');
}

/** One plain line of `watch` (not on a terminal). */
export function scalerLine(v: ScalerView, now = Date.now()): string {
  const s = v.state;
  if (!s) return `${clock(now)}  ${v.workflowStatus}  (no state: no daemon answers)`;
  const last = s.decisions.at(-1);
  return [
    clock(now),
    s.phase,
    `bounds ${range(s.bounds)}`,
    `target ${s.target}`,
    s.load?.ok ? `load ${s.load.inQueue}q+${s.load.inProgress}p` : 'load ?',
    s.load?.ok ? `workers ${s.load.running}b/${s.load.idle}i` : '',
    ...(s.override ? ['override'] : []),
    ...(s.window ? ['window'] : []),
    ...(s.fallbackActive ? ['FALLBACK'] : []),
    ...(s.spendCapBinding ? ['spend cap'] : []),
    ...(last ? [`last: ${last.kind} ${range(last.bounds)} (${clock(last.at)})`] : []),
  ]
    .filter(Boolean)
    .join('  ');
}
