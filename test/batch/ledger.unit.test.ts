/** The bulk batch's ledger (workflows/batch/ledger.ts, ledger-step.ts) as tables: a step's result → the ledger after it. Pure. */
import { describe, expect, it } from 'vitest';
import { BatchOptions, type BatchOptionsInput } from '../../contracts';
import { RETENTION_MARGIN_MS } from '../../contracts/names';
import { emptyStepResult, type Completion, type StepResult } from '../../activities/batch/types';
import {
  abandonWaiting,
  finalize,
  keyCounts,
  newLedger,
  retryOrder,
  type InFlight,
  type LedgerData,
  type Waiting,
} from '../../workflows/batch/ledger';
import { applyStep } from '../../workflows/batch/ledger-step';

const NOW = 10_000_000;
const opts = (o: BatchOptionsInput = {}) => BatchOptions.parse(o);
const result = (r: Partial<StepResult> = {}): StepResult => ({ ...emptyStepResult(), ...r });
const flying = (f: Partial<InFlight> = {}): InFlight => ({
  i: 0,
  o: 0,
  l: 10,
  id: 'j0',
  a: 1,
  r: 0,
  ids: ['j0'],
  t0: 1000,
  p: NOW + 30_000,
  pe: 30_000,
  ...f,
});
const ledgerWith = (d: Partial<LedgerData>): LedgerData => ({ ...newLedger(), ...d });

describe('applyStep: what a step submitted and read', () => {
  it('moves the cursor, counts the lines read, and puts submissions in flight (attempt 1)', () => {
    const d = newLedger();
    applyStep(
      d,
      result({
        read: { cursor: { line: 3, offset: 30 }, eof: false },
        submitted: [
          { i: 0, o: 0, l: 10, id: 'a' },
          { i: 1, o: 10, l: 10, k: 'x', id: 'b', dup: true },
        ],
        deferred: [{ i: 2, o: 20, l: 10, k: 'x' }],
      }),
      NOW,
      opts(),
      0,
    );
    expect(d.cursor).toEqual({ line: 3, offset: 30 });
    expect(d.counts).toMatchObject({ read: 3, submitted: 2, duplicatesAvoided: 1, inFlight: 2 });
    expect(d.inFlight[1]).toEqual({
      i: 1,
      o: 10,
      l: 10,
      k: 'x',
      id: 'b',
      a: 1,
      r: 0,
      ids: ['b'],
      t0: NOW,
      p: NOW + 30_000,
      pe: 30_000,
    });
    expect(d.deferred).toEqual([{ i: 2, o: 20, l: 10, k: 'x' }]);
  });

  it('polls a job in the poll mode after the polling interval, not the webhook fallback', () => {
    const d = newLedger();
    const o = opts({ completion: 'poll', polling: { initialIntervalMs: 2000 } });
    applyStep(d, result({ submitted: [{ i: 0, o: 0, l: 1, id: 'a' }] }), NOW, o, 0);
    expect(d.inFlight[0]).toMatchObject({ p: NOW + 2000, pe: 2000 });
  });

  it('gives bad and rejected lines their outcome at once (no attempt)', () => {
    const d = newLedger();
    applyStep(
      d,
      result({ bad: [{ i: 4, reason: 'not JSON' }], rejected: [{ i: 5, error: 'too large' }] }),
      NOW,
      opts(),
      0,
    );
    expect(d.finals).toEqual([
      { i: 4, s: 'BAD_INPUT', a: 0, ids: [], e: 'not JSON', t1: NOW },
      { i: 5, s: 'FAILED', a: 0, ids: [], e: 'too large', t1: NOW },
    ]);
    expect(d.counts.byStatus).toEqual({ BAD_INPUT: 1, FAILED: 1 });
  });
});

describe('applyStep: a finished job, by the retry rule', () => {
  type Row = [string, BatchOptionsInput, Partial<InFlight>, Omit<Completion, 'id' | 'r' | 'n'>, 'waits' | string];
  const rows: Row[] = [
    ['COMPLETED gets its outcome', {}, {}, { s: 'COMPLETED', x: 50 }, 'COMPLETED'],
    ['FAILED on attempt 1 waits for attempt 2', {}, {}, { s: 'FAILED', e: 'boom' }, 'waits'],
    ['FAILED on the last attempt gets its outcome', {}, { a: 3 }, { s: 'FAILED', e: 'boom' }, 'FAILED'],
    ['TIMED_OUT waits for its retry', {}, {}, { s: 'TIMED_OUT' }, 'waits'],
    ['TIMED_OUT left out of retryOn', { retry: { retryOn: ['FAILED'] } }, {}, { s: 'TIMED_OUT' }, 'TIMED_OUT'],
    [
      'a non-retryable error type',
      { retry: { nonRetryableErrorTypes: ['ValueError'] } },
      {},
      { s: 'FAILED', et: 'ValueError' },
      'FAILED',
    ],
    [
      'a non-retryable pattern',
      { retry: { nonRetryableErrorPatterns: ['quota'] } },
      {},
      { s: 'FAILED', e: 'quota hit' },
      'FAILED',
    ],
    ['a job whose cancel was sent', {}, { c: true }, { s: 'FAILED' }, 'FAILED'],
    ['CANCELLED on the service', {}, {}, { s: 'CANCELLED' }, 'CANCELLED'],
  ];
  it.each(rows)('%s', (_name, o, f, c, expected) => {
    const d = ledgerWith({ inFlight: [flying(f)] });
    applyStep(d, result({ completions: [{ id: 'j0', r: 0, n: 7, ...c }] }), NOW, opts(o), 3);
    expect(d.inFlight).toEqual([]);
    if (expected === 'waits') {
      expect(d.finals).toEqual([]);
      const a = f.a ?? 1;
      expect(d.waiting).toEqual([
        expect.objectContaining({
          i: 0,
          id: 'j0',
          a: a + 1,
          at: NOW + 1000,
          until: NOW + 30 * 60_000 - RETENTION_MARGIN_MS,
        }),
      ]);
      expect(d.counts.waitingRetry).toBe(1);
    } else {
      expect(d.waiting).toEqual([]);
      expect(d.finals).toEqual([expect.objectContaining({ i: 0, s: expected, a: f.a ?? 1, c: { seq: 3, n: 7 } })]);
      // The dead-letter file needs the line of an input that did not complete.
      expect('o' in d.finals[0]!).toBe(expected !== 'COMPLETED');
    }
  });

  it('ignores a completion of a job no longer in flight (a webhook and a poll both saw it)', () => {
    const d = newLedger();
    applyStep(d, result({ completions: [{ id: 'gone', r: 0, s: 'COMPLETED', n: 0 }] }), NOW, opts(), 0);
    expect(d.finals).toEqual([]);
  });

  it('adds the execution time to the spend estimate', () => {
    const d = ledgerWith({ inFlight: [flying()] });
    applyStep(d, result({ completions: [{ id: 'j0', r: 0, s: 'COMPLETED', x: 1200, n: 0 }] }), NOW, opts(), 0);
    expect([d.execMs, d.execN]).toEqual([1200, 1]);
  });
});

describe('applyStep: retries sent, cancels, expiries and polls', () => {
  const waiting = (w: Partial<Waiting> = {}): Waiting => ({
    i: 0,
    o: 0,
    l: 10,
    id: 'j0',
    a: 2,
    r: 0,
    ids: ['j0'],
    t0: 1000,
    at: NOW - 1,
    until: NOW + 60_000,
    last: { s: 'FAILED', e: 'boom' },
    ...w,
  });
  const rows: [string, StepResult['retried'][number], Partial<InFlight> | 'still waiting'][] = [
    [
      'a /retry keeps the id and counts a retry of it',
      { i: 0, id: 'j0', how: 'retry' },
      { id: 'j0', a: 2, r: 1, ids: ['j0'] },
    ],
    ['a resubmission is a new id', { i: 0, id: 'j9', how: 'resubmit' }, { id: 'j9', a: 2, r: 0, ids: ['j0', 'j9'] }],
    ['a refused /retry stays waiting', { i: 0, id: 'j0', how: 'retry', refused: true }, 'still waiting'],
  ];
  it.each(rows)('%s', (_name, retried, expected) => {
    const d = ledgerWith({ waiting: [waiting()] });
    applyStep(d, result({ retried: [retried] }), NOW, opts(), 0);
    if (expected === 'still waiting') {
      expect(d.inFlight).toEqual([]);
      // The result is gone: the next order resubmits.
      expect(retryOrder(d.waiting[0]!, NOW).how).toBe('resubmit');
      return;
    }
    expect(d.waiting).toEqual([]);
    expect(d.inFlight).toEqual([expect.objectContaining({ ...expected, p: NOW + 30_000 })]);
    expect(d.counts.retries).toBe(1);
  });

  it('marks a cancelled job and polls it within 2 s', () => {
    const d = ledgerWith({ inFlight: [flying()] });
    applyStep(d, result({ cancelled: ['j0'] }), NOW, opts(), 0);
    expect(d.inFlight[0]).toMatchObject({ c: true, p: NOW + 2000 });
  });

  it('ends a job the service forgot as JOB_EXPIRED, with its line', () => {
    const d = ledgerWith({ inFlight: [flying({ a: 2 })] });
    applyStep(d, result({ expired: ['j0'] }), NOW, opts(), 0);
    expect(d.finals).toEqual([expect.objectContaining({ i: 0, s: 'JOB_EXPIRED', a: 2, o: 0, l: 10 })]);
  });

  const polls: [string, BatchOptionsInput, number, number][] = [
    ['webhook mode doubles the poll interval', {}, 30_000, 60_000],
    ['up to 5 min', {}, 200_000, 300_000],
    ['poll mode grows by its coefficient', { completion: 'poll', polling: { backoffCoefficient: 1.5 } }, 1000, 1500],
  ];
  it.each(polls)('a job still running: %s', (_name, o, pe, next) => {
    const d = ledgerWith({ inFlight: [flying({ pe })] });
    applyStep(d, result({ polledRunning: ['j0'] }), NOW, opts(o), 0);
    expect(d.inFlight[0]).toMatchObject({ pe: next, p: NOW + next });
  });
});

describe('finalize, abandonWaiting, keyCounts, retryOrder', () => {
  it('keeps the last five errors and counts each status', () => {
    const d = newLedger();
    for (let i = 0; i < 7; i++) finalize(d, { i, s: 'FAILED', a: 1, ids: [], e: `e${i}`, t1: NOW });
    finalize(d, { i: 7, s: 'COMPLETED', a: 1, ids: [], t1: NOW });
    expect(d.lastErrors.map((e) => e.index)).toEqual([2, 3, 4, 5, 6]);
    expect(d.counts).toMatchObject({ done: 8, byStatus: { FAILED: 7, COMPLETED: 1 } });
  });

  it('ends the jobs waiting for a retry as their last run when the batch stops', () => {
    const d = ledgerWith({
      waiting: [
        {
          i: 3,
          o: 30,
          l: 5,
          id: 'x',
          a: 3,
          r: 1,
          ids: ['x'],
          t0: 5,
          at: NOW,
          until: NOW,
          last: { s: 'TIMED_OUT', e: 'slow' },
        },
      ],
    });
    abandonWaiting(d, NOW);
    expect(d.waiting).toEqual([]);
    expect(d.finals).toEqual([{ i: 3, s: 'TIMED_OUT', a: 2, ids: ['x'], t0: 5, t1: NOW, o: 30, l: 5, e: 'slow' }]);
    expect(d.counts.waitingRetry).toBe(0);
  });

  it('counts the key slots held by jobs in flight and by retries waiting', () => {
    const w = { o: 0, l: 1, id: 'w', a: 2, r: 0, ids: [], t0: 0, at: 0, until: 0, last: { s: 'FAILED' as const } };
    const d = ledgerWith({
      inFlight: [flying({ i: 0, k: 'a' }), flying({ i: 1, k: 'a' }), flying({ i: 2 })],
      waiting: [{ ...w, i: 3, k: 'b' }],
    });
    expect(Object.fromEntries(keyCounts(d))).toEqual({ a: 2, b: 1 });
  });

  it('orders a /retry while the result is retained, a resubmission after', () => {
    const w: Waiting = {
      i: 1,
      o: 2,
      l: 3,
      k: 'q',
      id: 'j',
      a: 2,
      r: 0,
      ids: ['j'],
      t0: 0,
      at: 0,
      until: NOW,
      last: { s: 'FAILED' },
    };
    expect(retryOrder(w, NOW - 1)).toEqual({ i: 1, o: 2, l: 3, k: 'q', id: 'j', a: 2, how: 'retry' });
    expect(retryOrder(w, NOW).how).toBe('resubmit');
  });
});

describe('applyStep: submissions not answered when their step ended (submitting)', () => {
  const sg = (i: number, k?: string) => ({
    i,
    o: i * 10,
    l: 10,
    ...(k ? { k } : {}),
    q: 3,
    dm: 'd1',
    dl: NOW + 10_000,
  });

  it('holds them as submitting (their slot and key taken, counted in flight), not deferred and not submitted', () => {
    const d = ledgerWith({ deferred: [{ i: 4, o: 40, l: 10, k: 'x' }] });
    applyStep(d, result({ sg: [sg(4, 'x'), sg(5)] }), NOW, opts(), 3);
    expect(d.submitting).toEqual([sg(4, 'x'), sg(5)]);
    expect(d.deferred).toEqual([]);
    expect(d.inFlight).toEqual([]);
    expect(d.counts).toMatchObject({ submitted: 0, inFlight: 2 });
    expect(keyCounts(d)).toEqual(new Map([['x', 1]]));
  });

  it('an answer reported later puts the job in flight; a refusal fails the input; deferred goes back to the deferred lines', () => {
    const d = ledgerWith({ submitting: [sg(1), sg(2), sg(3), sg(4)] });
    applyStep(
      d,
      result({
        submitted: [{ i: 1, o: 10, l: 10, id: 'j1', dup: true }],
        rejected: [{ i: 2, error: 'too large' }],
        deferred: [{ i: 3, o: 30, l: 10 }],
      }),
      NOW,
      opts(),
      5,
    );
    expect(d.submitting).toEqual([sg(4)]);
    expect(d.inFlight.map((f) => [f.i, f.id])).toEqual([[1, 'j1']]);
    expect(d.finals).toMatchObject([{ i: 2, s: 'FAILED', e: 'too large' }]);
    expect(d.deferred).toEqual([{ i: 3, o: 30, l: 10 }]);
    expect(d.counts).toMatchObject({ submitted: 1, duplicatesAvoided: 1, inFlight: 2 });
  });

  it('a completion heard before the answer is ignored (the job is polled once its id is known)', () => {
    const d = ledgerWith({ submitting: [sg(1)] });
    applyStep(d, result({ completions: [{ id: 'j1', r: 0, s: 'COMPLETED', n: 0 }] }), NOW, opts(), 5);
    expect(d.submitting).toEqual([sg(1)]);
    expect(d.finals).toEqual([]);
    applyStep(
      d,
      result({
        submitted: [{ i: 1, o: 10, l: 10, id: 'j1' }],
        completions: [{ id: 'j1', r: 0, s: 'COMPLETED', n: 0 }],
      }),
      NOW,
      opts(),
      6,
    );
    expect(d.submitting).toEqual([]);
    expect(d.finals).toMatchObject([{ i: 1, s: 'COMPLETED', ids: ['j1'] }]);
  });

  it('is carried as it is when a step reports nothing of it (continue-as-new carries the ledger whole)', () => {
    const d = ledgerWith({ submitting: [sg(1)] });
    applyStep(d, result({ sg: [sg(7)] }), NOW, opts(), 5);
    expect(d.submitting).toEqual([sg(1), sg(7)]);
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);
  });

  it('leaves a ledger from before the change without the field', () => {
    const d = newLedger();
    applyStep(d, result({ submitted: [{ i: 0, o: 0, l: 10, id: 'a' }] }), NOW, opts(), 0);
    expect('submitting' in d).toBe(false);
  });
});

describe('applyStep: a step run by another daemon process', () => {
  it('polls every job in flight at the next step (the new daemon knows none of them)', () => {
    const d = ledgerWith({ inFlight: [flying({ i: 0, id: 'a' }), flying({ i: 1, id: 'b', p: NOW - 5 })] });
    applyStep(d, result({ dm: 'd1' }), NOW, opts(), 0);
    expect(d.inFlight.map((f) => f.p)).toEqual([NOW + 30_000, NOW - 5]); // the first daemon seen: nothing changes
    applyStep(d, result({ dm: 'd1' }), NOW, opts(), 1);
    expect(d.inFlight[0]!.p).toBe(NOW + 30_000);
    applyStep(d, result({ dm: 'd2' }), NOW + 1, opts(), 2);
    expect(d.inFlight.map((f) => f.p)).toEqual([NOW + 1, NOW - 5]);
    expect(d.dm).toBe('d2');
  });
});
