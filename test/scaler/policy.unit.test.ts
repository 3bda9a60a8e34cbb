/**
 * The scaler's policy as a table: each case drives `decide` tick by tick over a load trace (as the
 * workflow does: a write changes the endpoint's bounds) and checks the decisions and the writes.
 */
import { describe, expect, it } from 'vitest';
import {
  ScalerOptions,
  type Backlog,
  type Bounds,
  type Decision,
  type HealthSample,
  type Override,
  type ScaleWindow,
  type ScalerOptionsInput,
} from '../../contracts';
import { decide, remember, type PolicyMemory } from '../../workflows/scaler/policy';

/** One tick of a trace: the load `[inQueue, inProgress, busy workers]` (or a failed sample) and what happens around it. */
interface Tick {
  load?: [number, number, number?];
  completed?: number;
  fail?: boolean;
  /** Someone else sets the bounds before this tick. */
  external?: Bounds;
  backlogs?: Backlog[];
  window?: ScaleWindow;
  override?: Override;
  paused?: boolean;
}
interface Step {
  at: number;
  d: Decision;
  bounds: Bounds;
}

const T0 = 1_700_000_000_000;

/** Runs the ticks every `intervalMs` from `start` bounds; returns each decision and the bounds after it. */
function simulate(
  opts: ScalerOptionsInput,
  ticks: Tick[],
  start: Bounds = { workersMin: 0, workersMax: 1 },
  price?: number,
): { steps: Step[]; writes: number } {
  let config = ScalerOptions.parse(opts);
  let bounds = { ...start };
  let memory: PolicyMemory = { target: start.workersMin, history: [], known: { ...start } };
  const samples: HealthSample[] = [];
  let failures = 0;
  let writes = 0;
  const steps: Step[] = [];
  ticks.forEach((t, n) => {
    const now = T0 + n * config.intervalMs;
    if (t.external) bounds = { ...t.external };
    const [inQueue, inProgress, running] = t.load ?? [0, 0, 0];
    failures = t.fail ? failures + 1 : 0;
    samples.push({
      at: now,
      ok: !t.fail,
      inQueue,
      inProgress,
      running: running ?? inProgress,
      idle: 0,
      initializing: 0,
      completed: t.completed ?? 0,
      ...(t.fail ? { error: 'HTTP 503' } : {}),
    });
    if (samples.length > 12) samples.shift();
    const input = {
      now,
      config,
      samples,
      bounds,
      memory,
      healthFailures: failures,
      ...(price !== undefined ? { pricePerHour: price } : {}),
      ...(t.backlogs ? { backlogs: t.backlogs } : {}),
      ...(t.window ? { window: t.window } : {}),
      ...(t.override ? { override: t.override } : {}),
      paused: t.paused ?? false,
    };
    const d = decide(input);
    if (d.write) {
      bounds = { ...d.bounds };
      writes++;
    }
    if (d.adopt) config = { ...config, floor: d.adopt.floor, ceiling: d.adopt.ceiling };
    memory = remember(input, d, true);
    steps.push({ at: now - T0, d, bounds: { ...bounds } });
  });
  return { steps, writes };
}

const times = (n: number, t: Tick): Tick[] => Array.from({ length: n }, () => t);
const idle: Tick = { load: [0, 0, 0] };
const b = (workersMin: number, workersMax: number): Bounds => ({ workersMin, workersMax });
/** The bounds after each tick, compressed to the ticks where they changed: `[tick, 'min..max']`. */
const changes = (steps: Step[]): [number, string][] =>
  steps
    .map((s, n) => [n, `${s.bounds.workersMin}..${s.bounds.workersMax}`] as [number, string])
    .filter(([n, v], i, all) => i === 0 || v !== all[i - 1]![1] || n === 0);
/** Writes that lowered the bounds within the stabilization window after a write that raised them (flapping). */
const reversals = (steps: Step[], windowMs: number): number => {
  const writes = steps
    .map((s, i) => ({ at: s.at, up: s.bounds.workersMax > (steps[i - 1]?.bounds.workersMax ?? 0), write: s.d.write }))
    .filter((w) => w.write);
  return writes.filter((w) => !w.up && writes.some((u) => u.up && u.at < w.at && u.at > w.at - windowMs)).length;
};

interface Case {
  name: string;
  opts: ScalerOptionsInput;
  ticks: Tick[];
  start?: Bounds;
  price?: number;
  check(r: { steps: Step[]; writes: number }): void;
}

const fast = { intervalMs: 5000, stabilizationWindowMs: 30_000, cooldownMs: 60_000, minWriteGapMs: 10_000 };

const cases: Case[] = [
  {
    name: 'burst: the first tick of load raises the bounds (activate), then steps +4 / +100 % per 15 s up to the ceiling',
    opts: { intervalMs: 5000 },
    ticks: [idle, ...times(14, { load: [40, 0, 0] })],
    check: ({ steps }) => {
      expect(steps[0]!.d).toMatchObject({ kind: 'hold', write: false });
      expect(steps[1]!.d).toMatchObject({ kind: 'activate', write: true, target: 4, bounds: b(4, 5) });
      expect(steps[1]!.d.reason).toMatch(/step limit: \+4 per 15 s from 0/);
      expect(changes(steps)).toEqual([
        [0, '0..1'],
        [1, '4..5'],
        [3, '8..9'],
        [5, '10..10'],
      ]);
      expect(steps.at(-1)!.d.reason).toMatch(/ceiling 10/);
    },
  },
  {
    name: 'quiet period: the bounds stay for the stabilization window, then drop to 1 warm worker, then to 0 after the cooldown',
    opts: { ...fast, cooldownMs: 90_000 },
    ticks: [{ load: [4, 0, 0] }, ...times(3, { load: [0, 4, 4] }), ...times(30, idle)],
    check: ({ steps }) => {
      // Last load at tick 3 (15 s): its recommendation leaves the window at 45 s (tick 9), the cooldown ends at 105 s (tick 21).
      expect(changes(steps)).toEqual([
        [0, '4..5'],
        [9, '1..2'],
        [21, '0..1'],
      ]);
      expect(steps[9]!.d).toMatchObject({ kind: 'scale-down' });
      expect(steps[9]!.d.reason).toMatch(/cooldown/);
      expect(steps[21]!.d).toMatchObject({ kind: 'deactivate', target: 0 });
      for (const s of steps.slice(4, 9)) expect(s.d.reason).toMatch(/stabilization: 4 recommended/);
    },
  },
  {
    name: 'oscillating load (8 jobs, none, 8 jobs, ...): one raise, no scale-down while it lasts, no flapping',
    opts: fast,
    ticks: Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? { load: [8, 0, 0] as [number, number, number] } : idle)),
    check: ({ steps, writes }) => {
      expect(writes).toBe(2); // 0 -> 4 -> 8
      expect(reversals(steps, fast.stabilizationWindowMs)).toBe(0);
      expect(steps.at(-1)!.bounds).toEqual(b(8, 9));
    },
  },
  {
    name: 'warm hold 0 (cost): workersMin stays at the floor, workersMax keeps the target through the window and the cooldown',
    opts: { ...fast, cooldownMs: 90_000, warmHoldMs: 0 },
    ticks: [{ load: [4, 0, 0] }, ...times(3, { load: [0, 4, 4] }), ...times(30, idle)],
    check: ({ steps }) => {
      // The same target as the quiet-period case (4, 1 at tick 9, 0 at tick 21); only workersMax carries it.
      expect(changes(steps)).toEqual([
        [0, '0..5'],
        [9, '0..2'],
        [21, '0..1'],
      ]);
      expect(steps.map((s) => s.d.target).slice(0, 10)).toEqual([4, 4, 4, 4, 4, 4, 4, 4, 4, 1]);
      expect(steps[0]!.d).toMatchObject({ kind: 'activate', write: true });
      expect(steps[0]!.d.reason).toMatch(
        /warm 0: none held, idle workers above it stop after the endpoint's idleTimeout/,
      );
    },
  },
  {
    name: 'warm hold 0 (cost) with a floor: workersMin never below the floor; no step limit on the capacity; oscillating load: one raise, no reversal',
    opts: { ...fast, floor: 2, warmHoldMs: 0 },
    ticks: Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? { load: [8, 0, 0] as [number, number, number] } : idle)),
    start: b(2, 3),
    check: ({ steps, writes }) => {
      // Target 2 -> 8 at once (the default step limit, +4 per 15 s, would take two periods): workersMax 9.
      expect(writes).toBe(1);
      expect(steps[0]!.d).toMatchObject({ kind: 'scale-up', target: 8, bounds: b(2, 9) });
      expect(steps.every((s) => s.bounds.workersMin === 2)).toBe(true);
      expect(reversals(steps, fast.stabilizationWindowMs)).toBe(0);
      expect(steps.at(-1)!.bounds).toEqual(b(2, 9));
    },
  },
  {
    name: 'warm hold 10 s: workersMin follows the load of the last 10 s (raised with it), workersMax the stabilization window',
    opts: { ...fast, warmHoldMs: 10_000 },
    ticks: [
      { load: [4, 0, 0] },
      ...times(3, { load: [0, 4, 4] }),
      ...times(8, idle),
      { load: [2, 0, 0] },
      ...times(6, idle),
    ],
    check: ({ steps }) => {
      // Load until tick 3 (15 s): warm 4 while a recommendation of 4 is within the last 10 s, 0 from tick 5 (25 s);
      // workersMax keeps 5 for the window (until 45 s: tick 9, then 1 + 1 for the cooldown). 2 jobs at tick 12 (60 s):
      // both bounds up at once, warm 2 until tick 14, target 2 (workersMax 3) until the window ends at tick 18.
      expect(changes(steps)).toEqual([
        [0, '4..5'],
        [5, '0..5'],
        [9, '0..2'],
        [12, '2..3'],
        [14, '0..3'],
        [18, '0..2'],
      ]);
      expect(steps[5]!.d).toMatchObject({ kind: 'scale-down', write: true });
      expect(steps[5]!.d.reason).toMatch(/warm 0: load of the last 10 s/);
    },
  },
  {
    name: 'health failures: hold below the threshold, then freeze (no write), then back to the policy',
    opts: { ...fast, fallback: { failureThreshold: 3 } },
    start: b(2, 3),
    ticks: [{ load: [2, 0, 0] }, ...times(4, { fail: true }), { load: [10, 0, 0] }],
    check: ({ steps }) => {
      expect(steps[1]!.d).toMatchObject({ kind: 'hold', write: false, fallbackActive: false });
      expect(steps[1]!.d.reason).toMatch(/health failed 1 of 3/);
      expect(steps[3]!.d).toMatchObject({ kind: 'fallback', write: false, fallbackActive: true, bounds: b(2, 3) });
      expect(steps[3]!.d.reason).toMatch(/health failed 3 times in a row \(HTTP 503\): bounds frozen at 2..3/);
      expect(steps[5]!.d).toMatchObject({ kind: 'scale-up', fallbackActive: false, write: true });
    },
  },
  {
    name: 'health failures with fallback bounds: the fallback bounds are written at once',
    opts: { ...fast, fallback: { failureThreshold: 2, mode: 'bounds', workersMin: 1, workersMax: 4 } },
    start: b(0, 1),
    ticks: [idle, { fail: true }, { fail: true }, { fail: true }],
    check: ({ steps, writes }) => {
      expect(steps[2]!.d).toMatchObject({ kind: 'fallback', write: true, bounds: b(1, 4), fallbackActive: true });
      expect(steps[3]!.d).toMatchObject({ kind: 'fallback', write: false });
      expect(writes).toBe(1);
    },
  },
  {
    name: 'step limits: +1 or +50 % per period, the larger',
    opts: { intervalMs: 5000, ceiling: 100, scaleUp: { workers: 1, percent: 50, periodMs: 5000 } },
    start: b(10, 11),
    ticks: times(4, { load: [100, 0, 0] }),
    check: ({ steps }) => {
      expect(steps.map((s) => s.d.target)).toEqual([15, 23, 35, 53]);
    },
  },
  {
    name: 'stabilization: a drop from 10 to 4 waits for the window; the highest recommendation in it wins',
    opts: { ...fast, ceiling: 20 },
    start: b(10, 11),
    ticks: [
      { load: [10, 0, 0] },
      ...times(3, { load: [4, 0, 0] }),
      { load: [6, 0, 0] },
      ...times(8, { load: [4, 0, 0] }),
    ],
    check: ({ steps }) => {
      // 10 recommended at 0 s: held until 30 s; then 6 (at 20 s) wins until 50 s; then 4.
      expect(changes(steps)).toEqual([
        [0, '10..11'],
        [6, '6..7'],
        [10, '4..5'],
      ]);
    },
  },
  {
    name: 'cooldown to zero: after the window the target is 1 until no load for the cooldown, then 0',
    opts: { ...fast, stabilizationWindowMs: 10_000, cooldownMs: 40_000 },
    ticks: [{ load: [3, 0, 0] }, ...times(12, idle)],
    check: ({ steps }) => {
      expect(changes(steps)).toEqual([
        [0, '3..4'],
        [2, '1..2'],
        [8, '0..1'],
      ]);
      expect(steps[8]!.d.kind).toBe('deactivate');
    },
  },
  {
    name: 'activation threshold: 3 jobs do not wake an idle endpoint with threshold 5, 6 do',
    opts: { ...fast, activationThreshold: 5 },
    ticks: [{ load: [3, 0, 0] }, { load: [6, 0, 0] }],
    check: ({ steps }) => {
      expect(steps[0]!.d).toMatchObject({ kind: 'hold', target: 0, bounds: b(0, 1) });
      expect(steps[0]!.d.reason).toMatch(/below the activation threshold 5/);
      expect(steps[1]!.d).toMatchObject({ kind: 'activate', target: 4 });
    },
  },
  {
    name: 'dead band: 21 jobs on a target of 20 is within 10 %: no change',
    opts: { ...fast, ceiling: 50 },
    start: b(20, 21),
    ticks: [{ load: [21, 0, 0] }, { load: [25, 0, 0] }],
    check: ({ steps }) => {
      expect(steps[0]!.d).toMatchObject({ kind: 'hold', write: false, target: 20 });
      expect(steps[0]!.d.reason).toMatch(/dead band/);
      expect(steps[1]!.d).toMatchObject({ kind: 'scale-up', target: 25 });
    },
  },
  {
    name: 'busy workers: workersMax never drops below the workers busy with jobs',
    opts: { ...fast, stabilizationWindowMs: 0, minWriteGapMs: 0 },
    start: b(6, 7),
    ticks: [{ load: [0, 5, 5] }, { load: [0, 2, 5] }],
    check: ({ steps }) => {
      expect(steps[0]!.bounds).toEqual(b(5, 6));
      expect(steps[1]!.bounds).toEqual(b(2, 5));
      expect(steps[1]!.d.reason).toMatch(/workersMax kept at 5: 5 workers are busy/);
    },
  },
  {
    name: 'spend cap: 2.00/h at 0.50 per worker-hour allows 4 workers; the status says the cap binds',
    opts: { ...fast, maxSpendPerHour: 2 },
    price: 0.5,
    ticks: times(6, { load: [20, 0, 0] }),
    check: ({ steps }) => {
      const last = steps.at(-1)!;
      expect(last.bounds).toEqual(b(4, 4));
      expect(last.d.spendCapBinding).toBe(true);
      expect(steps.find((s) => /spend cap 2\/h at 0.5\/worker-hour allows 4/.test(s.d.reason))).toBeDefined();
    },
  },
  {
    name: 'batch backlog with a deadline: the scaler raises ahead of an empty queue, and backs down as it drains',
    opts: { ...fast, scaleUp: { workers: 10 } },
    ticks: [
      // 600 jobs of 2 s to finish in 300 s: 4 workers, before any job is queued.
      {
        backlogs: [{ source: 'batch/a', remaining: 600, jobMs: 2000, deadline: T0 + 300_000, reportedAt: T0 }],
        load: [0, 0, 0],
      },
      // 4 workers finish 10 jobs a tick: still 4 needed each tick, until it drained (tick 7).
      ...Array.from({ length: 14 }, (_, i) => ({
        backlogs: [
          {
            source: 'batch/a',
            remaining: i < 6 ? 590 - 10 * i : 0,
            jobMs: 2000,
            deadline: T0 + 300_000,
            reportedAt: T0 + (i + 1) * 5000,
          },
        ],
        load: [0, 0, 0] as [number, number, number],
      })),
    ],
    check: ({ steps }) => {
      expect(steps[0]!.d).toMatchObject({ kind: 'activate', target: 4, write: true });
      expect(steps[0]!.d.reason).toMatch(/backlog batch\/a: 600 jobs x 2 s in 300 s: 4/);
      // Drained at tick 7 (35 s): the window keeps 4 until 60 s, then 1 warm worker (the cooldown runs from 30 s).
      expect(changes(steps)).toEqual([
        [0, '4..5'],
        [12, '1..2'],
      ]);
    },
  },
  {
    name: 'batch backlog that cannot make its deadline: as many workers as allowed, and the reason says so',
    opts: { ...fast, ceiling: 6, scaleUp: { workers: 10 } },
    ticks: [
      { backlogs: [{ source: 'batch/b', remaining: 10_000, jobMs: 1000, deadline: T0 + 60_000, reportedAt: T0 }] },
    ],
    check: ({ steps }) => {
      expect(steps[0]!.bounds).toEqual(b(6, 6));
      expect(steps[0]!.d.reason).toMatch(/deadline cannot be met within 6/);
    },
  },
  {
    name: 'pulled batch whose job time is unknown yet: a worker per targetPerWorker of its jobs, the deadline once the time is known',
    opts: { ...fast, targetPerWorker: 10, ceiling: 8, scaleUp: { workers: 10 } },
    ticks: [
      { backlogs: [{ source: 'batch/c', remaining: 50, deadline: T0 + 100_000, reportedAt: T0, pulled: true }] },
      {
        backlogs: [
          {
            source: 'batch/c',
            remaining: 40,
            jobMs: 10_000,
            deadline: T0 + 100_000,
            reportedAt: T0 + 5000,
            pulled: true,
          },
        ],
      },
      // A batch that keeps 3 in flight gets no more than 3 workers (its window), deadline or not.
      {
        backlogs: [
          {
            source: 'batch/c',
            remaining: 40,
            jobMs: 10_000,
            deadline: T0 + 100_000,
            concurrency: 3,
            reportedAt: T0 + 10_000,
            pulled: true,
          },
        ],
      },
      ...times(8, {
        backlogs: [
          {
            source: 'batch/c',
            remaining: 30,
            jobMs: 10_000,
            deadline: T0 + 100_000,
            concurrency: 3,
            reportedAt: T0 + 10_000,
            pulled: true,
          },
        ],
      }),
    ],
    check: ({ steps }) => {
      expect(steps[0]!.d).toMatchObject({ kind: 'activate', target: 5 });
      expect(steps[0]!.d.reason).toMatch(/backlog batch\/c: 50 jobs, job time unknown yet: 5/);
      // 40 jobs x 10 s in 95 s: 5 (ceil 4.2), the same target.
      expect(steps[1]!.d.reason).toMatch(/backlog batch\/c: 40 jobs x 10 s in 95 s: 5/);
      expect(steps[2]!.d.reason).toMatch(/backlog batch\/c: 40 jobs x 10 s in 90 s: 3 \(its window\)/);
      // After the window (30 s) the target follows the window: 3.
      expect(changes(steps)).toEqual([
        [0, '5..6'],
        [7, '3..4'],
      ]);
    },
  },
  {
    name: 'schedule window: floor 3 and ceiling 6 while it holds, the config again after',
    opts: { ...fast, minWriteGapMs: 0, scaleUp: { workers: 10 } },
    ticks: [
      { load: [0, 0, 0], window: { floor: 3, ceiling: 6, until: T0 + 20_000, source: 'morning' } },
      { load: [20, 0, 0], window: { floor: 3, ceiling: 6, until: T0 + 20_000, source: 'morning' } },
      { load: [20, 0, 0], window: { floor: 3, ceiling: 6, until: T0 + 20_000, source: 'morning' } },
      ...times(3, { load: [0, 0, 0], window: { floor: 3, ceiling: 6, until: T0 + 20_000, source: 'morning' } }),
    ],
    check: ({ steps }) => {
      expect(steps[0]!.bounds).toEqual(b(3, 4));
      expect(steps[0]!.d.reason).toMatch(/window morning: floor 3, ceiling 6/);
      expect(steps[2]!.bounds).toEqual(b(6, 6));
      // The window ended at 20 s: floor 0, ceiling 10 again; the stabilization window holds the target (no load: no raise).
      expect(steps[4]!.bounds).toEqual(b(6, 7));
    },
  },
  {
    name: "drift (reassert): someone else set 0..9; the next tick writes the scaler's bounds back and says why",
    opts: { ...fast, drift: 'reassert' },
    start: b(2, 3),
    ticks: [{ load: [2, 0, 0] }, { load: [2, 0, 0], external: b(0, 9) }, { load: [2, 0, 0] }],
    check: ({ steps }) => {
      expect(steps[1]!.d).toMatchObject({ kind: 'drift-reassert', write: true, bounds: b(2, 3) });
      expect(steps[1]!.d.reason).toMatch(/someone else changed the bounds from 2..3 to 0..9: reasserting/);
      expect(steps[2]!.d.kind).toBe('hold');
    },
  },
  {
    name: 'drift (adopt): their bounds become the new floor and ceiling, nothing is written',
    opts: { ...fast, drift: 'adopt' },
    start: b(2, 3),
    ticks: [{ load: [2, 0, 0] }, { load: [2, 0, 0], external: b(4, 8) }, { load: [20, 0, 0] }],
    check: ({ steps, writes }) => {
      expect(steps[1]!.d).toMatchObject({ kind: 'drift-adopt', write: false, adopt: { floor: 4, ceiling: 8 } });
      expect(writes).toBe(1);
      // From the adopted floor 4: +4 per period from 2 (the target at the period's start), within the ceiling 8.
      expect(steps[2]!.bounds).toEqual(b(6, 7));
    },
  },
  {
    name: 'override: pins the bounds until it expires, then the policy takes over (scale-down after the min gap)',
    opts: { ...fast, minWriteGapMs: 0 },
    ticks: [
      ...times(3, { load: [1, 0, 0], override: { workersMin: 5, workersMax: 5, until: T0 + 10_000 } }),
      { load: [1, 0, 0] },
    ],
    check: ({ steps, writes }) => {
      expect(steps[0]!.d).toMatchObject({ kind: 'override', write: true, bounds: b(5, 5) });
      expect(steps[1]!.d).toMatchObject({ kind: 'override', write: false });
      expect(steps[2]!.d.kind).not.toBe('override');
      expect(steps[3]!.bounds).toEqual(b(1, 2));
      expect(writes).toBe(2);
    },
  },
  {
    name: 'paused: nothing changes whatever the load',
    opts: fast,
    ticks: times(3, { load: [30, 0, 0], paused: true }),
    check: ({ steps, writes }) => {
      expect(writes).toBe(0);
      expect(steps.every((s) => s.d.kind === 'paused')).toBe(true);
    },
  },
  {
    name: 'min write gap: a scale-down waits for the gap, a scale-up does not',
    opts: { intervalMs: 5000, stabilizationWindowMs: 0, cooldownMs: 0, minWriteGapMs: 30_000 },
    ticks: [{ load: [4, 0, 0] }, ...times(5, idle), { load: [3, 0, 0] }],
    check: ({ steps }) => {
      expect(steps[1]!.d.reason).toMatch(/write deferred: last write 5 s ago, min gap 30 s/);
      expect(changes(steps)).toEqual([
        [0, '4..5'],
        [6, '3..4'],
      ]);
    },
  },
  {
    name: 'target queue delay: 30 queued jobs of ~2 s, to wait at most 10 s: 6 workers (+ those in progress)',
    opts: { ...fast, targetQueueDelayMs: 10_000, scaleUp: { workers: 20 } },
    start: b(2, 3),
    ticks: [
      { load: [30, 2, 2], completed: 0 },
      { load: [30, 2, 2], completed: 5 },
    ],
    check: ({ steps }) => {
      // No job duration known yet: per worker. Then 2 busy workers finished 5 jobs in 5 s: 2 s a job; 30 x 2 s / 10 s = 6, + 2 in progress.
      expect(steps[0]!.d.reason).toMatch(/32 jobs \/ 1 per worker/);
      expect(steps[1]!.d.recommendation).toBe(8);
      expect(steps[1]!.d.reason).toMatch(/30 queued x 2 s a job within 10 s/);
    },
  },
];

describe('scaling policy (table)', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    c.check(simulate(c.opts, c.ticks, c.start, c.price));
  });

  it('is deterministic: the same input gives the same decision', () => {
    const c = cases[0]!;
    expect(simulate(c.opts, c.ticks)).toEqual(simulate(c.opts, c.ticks));
  });
});
