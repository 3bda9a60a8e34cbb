/**
 * What the load asks of the scaler (workflows/scaler/demand.ts) as tables: the schedule window in
 * force, the live backlogs, the job time observed from `/health`, the workers the last sample and
 * the backlogs ask for (with their words), and the limits in force. Pure: no server, no process.
 */
import { describe, expect, it } from 'vitest';
import {
  ScalerOptions,
  type Backlog,
  type HealthSample,
  type ScaleWindow,
  type ScalerOptionsInput,
} from '../../contracts';
import {
  backlogRecommendation,
  demandOf,
  liveBacklogs,
  loadRecommendation,
  observedJobMs,
  windowAt,
} from '../../workflows/scaler/demand';

const NOW = 1_700_000_000_000;
const config = (o: ScalerOptionsInput = {}) => ScalerOptions.parse(o);
/** A successful sample: `[inQueue, inProgress, running, completed]` at `at`. */
const sample = (at: number, [inQueue, inProgress, running, completed]: number[]): HealthSample => ({
  at,
  ok: true,
  inQueue: inQueue!,
  inProgress: inProgress!,
  running: running!,
  idle: 0,
  initializing: 0,
  completed: completed!,
});
const failed = (at: number): HealthSample => ({ ...sample(at, [0, 0, 99, 0]), ok: false, error: 'HTTP 503' });
const backlog = (b: Partial<Backlog> & { source: string }): Backlog => ({ remaining: 10, reportedAt: NOW, ...b });

describe('windowAt: the schedule window in force', () => {
  const w: ScaleWindow = { floor: 2, ceiling: 5, until: NOW + 1000 };
  it.each([
    ['no window', undefined, NOW, undefined],
    ['a window without an end', { floor: 2, ceiling: 5 }, NOW + 10 ** 9, { floor: 2, ceiling: 5 }],
    ['before its end', w, NOW + 999, w],
    ['at its end', w, NOW + 1000, undefined],
    ['after its end', w, NOW + 5000, undefined],
  ])('%s', (_, window, now, expected) => {
    expect(windowAt(window, now)).toEqual(expected);
  });
});

describe('liveBacklogs: reports with work left, refreshed within the ttl', () => {
  const ttl = 60_000;
  it.each([
    ['none reported', undefined, []],
    ['work left, fresh', [backlog({ source: 'a' })], ['a']],
    ['nothing left', [backlog({ source: 'a', remaining: 0 })], []],
    ['reported exactly one ttl ago', [backlog({ source: 'a', reportedAt: NOW - ttl })], ['a']],
    ['reported just over one ttl ago', [backlog({ source: 'a', reportedAt: NOW - ttl - 1 })], []],
    [
      'a mix, in their order',
      [
        backlog({ source: 'a' }),
        backlog({ source: 'b', remaining: 0 }),
        backlog({ source: 'c', reportedAt: NOW - ttl * 2 }),
        backlog({ source: 'd', remaining: 1 }),
      ],
      ['a', 'd'],
    ],
  ])('%s', (_, backlogs, sources) => {
    expect(liveBacklogs(backlogs, NOW, ttl).map((b) => b.source)).toEqual(sources);
  });
});

describe('observedJobMs: busy workers x time / jobs completed over the successful samples', () => {
  it.each([
    ['no samples', [], undefined],
    ['one sample', [sample(NOW, [0, 0, 2, 5])], undefined],
    ['2 busy for 10 s, 5 done: 4 s a job', [sample(NOW, [0, 0, 2, 0]), sample(NOW + 10_000, [0, 0, 2, 5])], 4000],
    [
      'busy is the mean over the samples',
      [sample(NOW, [0, 0, 1, 0]), sample(NOW + 5000, [0, 0, 2, 2]), sample(NOW + 10_000, [0, 0, 3, 4])],
      5000,
    ],
    [
      'failed samples do not count',
      [sample(NOW, [0, 0, 2, 0]), failed(NOW + 5000), sample(NOW + 10_000, [0, 0, 2, 5])],
      4000,
    ],
    ['nothing completed', [sample(NOW, [0, 0, 2, 5]), sample(NOW + 10_000, [0, 0, 2, 5])], undefined],
    ['no worker busy', [sample(NOW, [0, 0, 0, 0]), sample(NOW + 10_000, [0, 0, 0, 5])], undefined],
    ['no time between them', [sample(NOW, [0, 0, 2, 0]), sample(NOW, [0, 0, 2, 5])], undefined],
  ])('%s', (_, samples, expected) => {
    expect(observedJobMs(samples)).toBe(expected);
  });
});

describe('loadRecommendation: workers for the last sample', () => {
  it.each([
    ['per worker', {}, [5, 2], undefined, 7, '7 jobs / 1 per worker'],
    ['per 2 jobs a worker, rounded up', { targetPerWorker: 2 }, [5, 2], undefined, 4, '7 jobs / 2 per worker'],
    ['no load', {}, [0, 0], 3000, 0, '0 jobs / 1 per worker'],
    [
      'a target delay without a job time: per worker',
      { targetQueueDelayMs: 4000 },
      [5, 2],
      undefined,
      7,
      '7 jobs / 1 per worker',
    ],
    ['a job time without a target delay: per worker', {}, [5, 2], 2000, 7, '7 jobs / 1 per worker'],
    [
      'drain the queue within the target delay',
      { targetQueueDelayMs: 4000 },
      [10, 3],
      2000,
      8,
      '10 queued x 2 s a job within 4 s + 3 in progress',
    ],
    [
      'a short queue takes a whole worker',
      { targetQueueDelayMs: 4000 },
      [1, 0],
      500,
      1,
      '1 queued x 0.5 s a job within 4 s + 0 in progress',
    ],
  ] as const)('%s', (_, opts, [inQueue, inProgress], jobMs, rec, why) => {
    const s = sample(NOW, [inQueue, inProgress, 0, 0]);
    expect(loadRecommendation(s, config(opts), jobMs)).toEqual({ rec, why });
  });
});

describe('backlogRecommendation: workers for the batches to finish by their deadlines', () => {
  const deadline = NOW + 10_000;
  it.each([
    ['no backlog', {}, [], 8, 0, []],
    [
      'no deadline: per worker',
      {},
      [backlog({ source: 'a', remaining: 5 })],
      8,
      5,
      ['backlog a: 5 jobs, no deadline: 5'],
    ],
    [
      'no deadline, 2 jobs a worker',
      { targetPerWorker: 2 },
      [backlog({ source: 'a', remaining: 5 })],
      8,
      3,
      ['backlog a: 5 jobs, no deadline: 3'],
    ],
    [
      'no deadline, within its window',
      {},
      [backlog({ source: 'a', remaining: 5, concurrency: 2 })],
      8,
      2,
      ['backlog a: 5 jobs, no deadline: 2 (its window)'],
    ],
    [
      'a deadline without a job time: per worker',
      {},
      [backlog({ source: 'a', remaining: 5, deadline })],
      8,
      5,
      ['backlog a: 5 jobs, job time unknown yet: 5'],
    ],
    [
      '10 jobs x 3 s in 10 s',
      {},
      [backlog({ source: 'a', jobMs: 3000, deadline })],
      8,
      3,
      ['backlog a: 10 jobs x 3 s in 10 s: 3'],
    ],
    [
      'a deadline the cap cannot meet',
      {},
      [backlog({ source: 'a', jobMs: 3000, deadline })],
      2,
      3,
      ['backlog a: 10 jobs x 3 s in 10 s: 3 (deadline cannot be met within 2)'],
    ],
    [
      'a deadline passed: all the cap allows',
      {},
      [backlog({ source: 'a', jobMs: 3000, deadline: NOW })],
      8,
      8,
      ['backlog a: deadline passed with 10 jobs left: all allowed (8)'],
    ],
    [
      'a deadline passed, within its window',
      {},
      [backlog({ source: 'a', jobMs: 3000, deadline: NOW - 1, concurrency: 4 })],
      8,
      4,
      ['backlog a: deadline passed with 10 jobs left: all allowed (4 (its window))'],
    ],
    [
      'several batches add up',
      {},
      [backlog({ source: 'a', remaining: 3 }), backlog({ source: 'b', jobMs: 3000, deadline })],
      8,
      6,
      ['backlog a: 3 jobs, no deadline: 3', 'backlog b: 10 jobs x 3 s in 10 s: 3'],
    ],
  ] as const)('%s', (_, opts, backlogs, cap, rec, why) => {
    expect(backlogRecommendation([...backlogs], config(opts), NOW, cap)).toEqual({ rec, why });
  });
});

describe('demandOf: the recommendation, the load and the limits in force', () => {
  const last = sample(NOW, [3, 1, 1, 0]);
  const input = (
    o: ScalerOptionsInput,
    extra: { window?: ScaleWindow; pricePerHour?: number; backlogs?: Backlog[] } = {},
  ) => ({
    now: NOW,
    config: config(o),
    samples: [last],
    bounds: { workersMin: 0, workersMax: 1 },
    memory: { target: 0, history: [], lastLoadAt: NOW - 1 },
    healthFailures: 0,
    ...extra,
  });
  it.each([
    [
      'the config floor and ceiling',
      input({ floor: 1, ceiling: 6 }),
      { lo: 1, hi: 6, spendMax: Infinity, cap: 6, rec: 4, load: 4 },
    ],
    [
      'a window in force',
      input({ floor: 1, ceiling: 6 }, { window: { floor: 2, ceiling: 5 } }),
      { lo: 2, hi: 5, spendMax: Infinity, cap: 5, rec: 4, load: 4 },
    ],
    [
      'a window ended',
      input({ floor: 1, ceiling: 6 }, { window: { floor: 2, ceiling: 5, until: NOW } }),
      { lo: 1, hi: 6, spendMax: Infinity, cap: 6, rec: 4, load: 4 },
    ],
    [
      'a spend cap at the price read',
      input({ maxSpendPerHour: 5 }, { pricePerHour: 2 }),
      { lo: 0, hi: 10, price: 2, spendMax: 2, cap: 2, rec: 4, load: 4 },
    ],
    [
      "the config's price wins over the one read",
      input({ maxSpendPerHour: 5, pricePerHour: 1 }, { pricePerHour: 2 }),
      { lo: 0, hi: 10, price: 1, spendMax: 5, cap: 5, rec: 4, load: 4 },
    ],
    [
      'a spend cap without a price: none',
      input({ maxSpendPerHour: 5 }),
      { lo: 0, hi: 10, price: undefined, spendMax: Infinity, cap: 10, rec: 4, load: 4 },
    ],
    [
      'a backlog asking more than the load',
      input({}, { backlogs: [backlog({ source: 'a', remaining: 6 })] }),
      { lo: 0, hi: 10, spendMax: Infinity, cap: 10, rec: 6, load: 10 },
    ],
  ])('%s', (_, i, expected) => {
    expect(demandOf(i, last)).toMatchObject({ ...expected, lastLoadAt: NOW });
  });

  it('keeps the last time there was load while there is none', () => {
    const idle = sample(NOW, [0, 0, 0, 0]);
    const d = demandOf({ ...input({}), samples: [idle] }, idle);
    expect(d).toMatchObject({ rec: 0, load: 0, lastLoadAt: NOW - 1 });
    expect(d.why).toEqual(['load 0 queued + 0 in progress: 0 jobs / 1 per worker = 0']);
  });
});
