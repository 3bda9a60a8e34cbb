/** The per-job mode's bookkeeping (workflows/batch/per-job-ledger.ts) as tables: window, keys, a child's end → the input's outcome. Pure. */
import { ApplicationFailure, CancelledFailure, ChildWorkflowFailure, RetryState } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { BatchWorkflowInput, type BatchOptionsInput, type JobWorkflowResult, type WaitReason } from '../../contracts';
import { FailureType } from '../../contracts/names';
import type { Controls } from '../../workflows/batch/controls';
import {
  MAX_CHILD_WINDOW,
  childInput,
  finalOfFailure,
  finalOfResult,
  finalize,
  newChildLedger,
  pickStarts,
  waitingOf,
  windowOf,
  type ChildLedger,
  type Running,
} from '../../workflows/batch/per-job-ledger';

const NOW = 10_000_000;
const controls = (c: Partial<Controls> = {}): Controls => ({ paused: false, cancelling: false, concurrency: 3, ...c });
const ledgerWith = (d: Partial<ChildLedger>): ChildLedger => ({ ...newChildLedger(), ...d });
const ref = (i: number, k?: string) => ({ i, o: i * 10, l: 10, ...(k !== undefined ? { k } : {}) });
const runningOf = (...keys: (string | undefined)[]) =>
  new Map<number, Running>(keys.map((k, n) => [100 + n, { t0: 0, ...(k !== undefined ? { k } : {}) }]));

describe('windowOf', () => {
  it.each([
    [10, 10],
    [5000, MAX_CHILD_WINDOW],
  ])('concurrency %i: %i children at most', (concurrency, window) => {
    expect(windowOf(controls({ concurrency }))).toBe(window);
  });
});

describe('pickStarts', () => {
  const rows: [string, string[], (string | undefined)[], Partial<Controls>, number[], number[]][] = [
    ['room for all', ['', '', ''], [], {}, [0, 1, 2], []],
    ['room for some: the first in line', ['', '', ''], [undefined], {}, [0, 1], [2]],
    ['a full window starts none', ['', ''], [undefined, undefined, undefined], {}, [], [0, 1]],
    ['a key at its cap waits, the next key goes', ['a', 'a', 'b'], ['a'], { keyLimit: 1 }, [2], [0, 1]],
    ['a key with room takes it once', ['a', 'a', 'b'], [], { keyLimit: 1 }, [0, 2], [1]],
  ];
  it.each(rows)('%s', (_name, keys, running, c, started, left) => {
    const d = ledgerWith({ pending: keys.map((k, i) => ref(i, k === '' ? undefined : k)) });
    expect(pickStarts(d, runningOf(...running), controls(c)).map((l) => l.i)).toEqual(started);
    expect(d.pending.map((l) => l.i)).toEqual(left);
  });
});

describe('waitingOf', () => {
  const rows: [string, Partial<ChildLedger>, number, Partial<Controls>, WaitReason[], WaitReason[]][] = [
    ['input left, window full', {}, 3, {}, [], ['window-full']],
    ['lines wait for their key', { eof: true, pending: [ref(0, 'a')] }, 1, { keyLimit: 1 }, [], ['key-cap']],
    ['all read and started', { eof: true }, 1, {}, [], ['input-done']],
    ['a blocker comes first', {}, 0, { paused: true }, ['paused'], ['paused']],
  ];
  it.each(rows)('%s', (_name, d, running, c, blockers, why) => {
    const r = runningOf(...Array.from({ length: running }, () => undefined));
    expect(waitingOf(ledgerWith(d), r, controls(c), blockers)).toEqual(why);
  });
});

describe('childInput', () => {
  it('passes the line by reference and the retry options on; outputs always go to the store', () => {
    const input = BatchWorkflowInput.parse({
      endpointId: 'e',
      source: '/in.jsonl',
      outDir: '/out',
      options: { retry: { maxAttempts: 5 }, inputFormat: 'bare' } satisfies BatchOptionsInput,
    });
    const child = childInput(input, ref(7));
    expect(child.line).toEqual({ source: '/in.jsonl', index: 7, offset: 70, length: 10, format: 'bare' });
    expect(child.options).toMatchObject({
      retry: { maxAttempts: 5 },
      stream: false,
      syncWaitMs: 0,
      inlineOutputLimitBytes: 0,
    });
  });
});

describe("a child's end → the input's outcome", () => {
  const run: Running = { t0: 5, cr: 'run-1' };
  const attempt = (n: number, status: string, executionTime?: number) => ({
    number: n,
    remoteJobId: 'j1',
    how: n === 1 ? 'submit' : 'retry',
    status,
    startedAt: 0,
    endedAt: 1,
    ...(executionTime !== undefined ? { executionTime } : {}),
  });
  const result = (status: string, attempts: ReturnType<typeof attempt>[], r: object = {}) =>
    ({ status, attempts, streamChunks: 0, ...r }) as JobWorkflowResult;

  it('a completed job: its ids once, its retries and its spend; no line for the dead letters', () => {
    const r = result('COMPLETED', [attempt(1, 'FAILED', 100), attempt(2, 'COMPLETED', 300)], {
      outputRef: { key: 'out/7' },
    });
    expect(finalOfResult(ref(7), run, r, NOW)).toEqual({
      f: { i: 7, s: 'COMPLETED', a: 2, ids: ['j1'], t0: 5, t1: NOW, out: 'out/7' },
      execMs: 400,
      retries: 1,
    });
  });

  const failures: [string, unknown, string, string | undefined][] = [
    ['a cancelled child', new CancelledFailure('cancelled'), 'CANCELLED', undefined],
    [
      'a child that failed on an expired job',
      new ChildWorkflowFailure(
        'default',
        { workflowId: 'w', runId: 'r' },
        'jobWorkflow',
        RetryState.NON_RETRYABLE_FAILURE,
        ApplicationFailure.create({ type: FailureType.JOB_EXPIRED, message: 'gone', nonRetryable: true }),
      ),
      FailureType.JOB_EXPIRED,
      'gone',
    ],
    ['any other failure', new Error('daemon lost'), 'FAILED', 'daemon lost'],
  ];
  it.each(failures)('%s', (_name, err, status, error) => {
    const { f, execMs, retries } = finalOfFailure(ref(3), run, err, NOW);
    expect(f).toMatchObject({ i: 3, s: status, a: 0, ids: [], o: 30, l: 10, cr: 'run-1' });
    expect(f.e).toBe(error);
    expect([execMs, retries]).toEqual([0, 0]);
  });

  it("a child that failed with its job's result (the job did not complete): the result's outcome", () => {
    const r = result('FAILED', [attempt(1, 'FAILED'), attempt(2, 'FAILED')], { error: 'no good', errorType: 'E' });
    const err = ApplicationFailure.create({ type: FailureType.JOB_FAILED, details: [r], nonRetryable: true });
    const { f, retries } = finalOfFailure(ref(3), run, err, NOW);
    expect(f).toEqual({ i: 3, s: 'FAILED', a: 2, ids: ['j1'], t0: 5, t1: NOW, e: 'no good', et: 'E', o: 30, l: 10 });
    expect(retries).toBe(1);
  });

  it('finalize counts the outcome, its spend and retries, and keeps its error', () => {
    const d = newChildLedger();
    finalize(d, { i: 1, s: 'FAILED', a: 3, ids: ['x'], e: 'boom', t1: NOW }, 250, 2);
    expect(d).toMatchObject({
      execMs: 250,
      counts: { done: 1, retries: 2, byStatus: { FAILED: 1 } },
      lastErrors: [{ index: 1, error: 'boom' }],
    });
    expect(d.finals).toHaveLength(1);
  });
});
