/**
 * The batch backlogs a scaler knows (workflows/scaler/backlogs.ts) as tables: a pushed report
 * replaces its source's, and a pull brings one report per running batch, merged with the pushed
 * ones. Pure: no server, no process.
 */
import { describe, expect, it } from 'vitest';
import type { EndpointBacklog } from '../../activities/scaler/activities';
import type { PulledBacklog } from '../../activities/scaler/backlog';
import type { Backlog, BacklogReport, HealthSample } from '../../contracts';
import { mergePulled, withReport } from '../../workflows/scaler/backlogs';

const NOW = 1_700_000_000_000;
const SCAN_MS = 10_000;
const pushed = (source: string, reportedAt: number, remaining = 7): Backlog => ({
  source,
  remaining,
  jobMs: 1000,
  reportedAt,
});
const running = (source: string, b: Partial<PulledBacklog> = {}): PulledBacklog => ({
  source,
  endpointId: 'ep',
  remaining: 10,
  concurrency: 4,
  ...b,
});
const scan = (...batches: PulledBacklog[]): EndpointBacklog => ({
  at: NOW,
  batches,
  listed: batches.length,
  failed: 0,
  truncated: false,
});
/** The report a pull makes of a running batch. */
const pulled = (source: string, b: Partial<Backlog> = {}): Backlog => ({
  source,
  remaining: 10,
  concurrency: 4,
  ...b,
  reportedAt: NOW,
  pulled: true,
});
/** Two samples from which `/health` shows 4 s a job (2 busy for 10 s, 5 done), or `ms` per job. */
const observed = (ms = 4000): HealthSample[] =>
  [0, 1].map((k) => ({
    at: NOW - 10_000 + k * 10_000,
    ok: true,
    inQueue: 0,
    inProgress: 2,
    running: 2,
    idle: 0,
    initializing: 0,
    completed: k * Math.round(20_000 / ms),
  }));

describe('withReport: a pushed report replaces the report of its source', () => {
  const r = (source: string, b: Partial<BacklogReport> = {}): BacklogReport => ({
    source,
    remaining: 3,
    jobMs: 500,
    ...b,
  });
  it.each([
    ['the first report, stamped now', [], r('a'), [{ ...r('a'), reportedAt: NOW }]],
    ['a report keeps its own time', [], r('a', { reportedAt: NOW - 5 }), [{ ...r('a'), reportedAt: NOW - 5 }]],
    [
      'a newer report of the same source replaces the older, at the end',
      [pushed('a', NOW - 1000), pushed('b', NOW - 1000)],
      r('a', { remaining: 1 }),
      [pushed('b', NOW - 1000), { ...r('a', { remaining: 1 }), reportedAt: NOW }],
    ],
    ['it replaces a pulled report of its source too', [pulled('a')], r('a'), [{ ...r('a'), reportedAt: NOW }]],
  ])('%s', (_, backlogs, report, expected) => {
    expect(withReport(backlogs, report, NOW)).toEqual(expected);
  });
});

describe('mergePulled: the pushed reports and one pulled report per running batch', () => {
  it.each([
    ['nothing known, nothing running', [], scan(), [], []],
    [
      'a running batch: its remaining work, window, job time and deadline',
      [],
      scan(running('a', { jobMs: 2000, deadline: NOW + 60_000 })),
      [],
      [pulled('a', { jobMs: 2000, deadline: NOW + 60_000 })],
    ],
    ['a batch no longer running: its pulled report goes', [pulled('a')], scan(), [], []],
    [
      'a pushed report stays when its batch is not listed',
      [pushed('b', NOW - 60_000)],
      scan(),
      [],
      [pushed('b', NOW - 60_000)],
    ],
    [
      'a pushed report newer than one scan period wins over the pull',
      [pushed('a', NOW - SCAN_MS + 1)],
      scan(running('a')),
      [],
      [pushed('a', NOW - SCAN_MS + 1)],
    ],
    [
      'a pushed report one scan period old gives way to the pull',
      [pushed('a', NOW - SCAN_MS)],
      scan(running('a')),
      [],
      [pulled('a')],
    ],
    [
      'pushed reports first, then the pulled ones',
      [pulled('a', { remaining: 99 }), pushed('b', NOW - 1000)],
      scan(running('a', { remaining: 5 }), running('c')),
      [],
      [pushed('b', NOW - 1000), pulled('a', { remaining: 5 }), pulled('c')],
    ],
    [
      'a batch without a job time yet takes the one observed from /health',
      [],
      scan(running('a')),
      observed(4000),
      [pulled('a', { jobMs: 4000 })],
    ],
    [
      "the batch's own job time wins over the observed one",
      [],
      scan(running('a', { jobMs: 2500 })),
      observed(4000),
      [pulled('a', { jobMs: 2500 })],
    ],
    [
      'the observed job time is rounded to whole ms (3 completions over 2 busy x 10 s)',
      [],
      scan(running('a')),
      observed(20_000 / 3),
      [pulled('a', { jobMs: 6667 })],
    ],
  ])('%s', (_, backlogs, s, samples, expected) => {
    expect(mergePulled(backlogs, s, NOW, SCAN_MS, samples)).toEqual(expected);
  });
});
