/**
 * A step's first submissions at its end (activities/batch/detached.ts StepSends), on a fake clock:
 * what the step reports itself, what it hands on, and how soon a later step learns what each came to.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DETACHED_MS, DetachedSubmissions, PATIENCE_MS, StepSends } from '../../activities/batch/detached';
import { Submitter, type Submitted } from '../../activities/batch/submitter';
import { reportSubmitting } from '../../activities/batch/submitting';
import { emptyStepResult, type LineRef, type StepRequest, type StepResult } from '../../activities/batch/types';
import { RateLimitedError, type QueueClient } from '../../platform-api';
import { type ObjectStore } from '../../results/store/object-store';

const run = { workflowId: 'batch/b', runId: 'r1' };
const req = { run, seq: 3, endpointId: 'ep' } as StepRequest;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A journal whose append takes `ms` (a loaded disk's fsync): the window in which the step hands its calls on. */
const slowStore = (ms: number) =>
  ({
    lines: () => Promise.resolve([]),
    append: () => sleep(ms),
  }) as unknown as ObjectStore;

/** Records what the step itself learnt of its submissions, as runStep does. */
const recorder = (res: StepResult) => (ref: LineRef, r: Submitted) => {
  if (r === undefined) res.deferred.push(ref);
  else if ('error' in r) res.rejected.push({ i: ref.i, error: r.error });
  else res.submitted.push({ ...ref, id: r.id });
};

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
const item = (i: number) => ({ ref: { i, o: i * 10, l: 10 }, body: { input: { i } } });

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('StepSends at the end of its step', () => {
  it('a call that settles while the step hands it on is reported by the next step at once, not at its deadline', async () => {
    // 16 lanes. Inputs 0-7 are answered 100 ms in (before the step's end: their journal entries
    // make its flush at the end take 500 ms), 8-23 after the step's patience, during that flush;
    // input 15's call is refused by a 429 for good (deferred); input 24's call never started.
    const queue = {
      run: async (_ep: string, body: { input: { i: number } }) => {
        const i = body.input.i;
        await sleep(i < 8 ? 100 : 300);
        if (i === 15) throw new RateLimitedError('run failed with HTTP 429', { operation: 'run' });
        return { id: `j${i}`, status: 'IN_QUEUE' };
      },
      retry: () => Promise.reject(new Error('unused')),
    } as unknown as Pick<QueueClient, 'run' | 'retry'>;
    const sub = await Submitter.open(queue, slowStore(500), req, undefined);
    const detach = new DetachedSubmissions();
    const res = emptyStepResult();
    const sends = new StepSends({ run, seq: 3, sub, record: recorder(res), detach, answered: () => undefined });
    await sends.sendAll(
      Array.from({ length: 25 }, (_, i) => item(i)),
      () => undefined,
    );
    const ending = sends.end();
    await vi.advanceTimersByTimeAsync(PATIENCE_MS + 500);
    const sg = await ending;

    // The next step, about a second later, long before the calls' deadline (10 s on): every input
    // is accounted for, none left open until its deadline.
    await vi.advanceTimersByTimeAsync(1500);
    const next = emptyStepResult();
    await reportSubmitting(slowStore(0), run, sg, next, detach, () => undefined);
    expect(Date.now()).toBeLessThan(sg[0]!.dl);
    const known = [...res.submitted, ...res.deferred, ...next.submitted, ...next.deferred].map((r) => r.i);
    expect(known.sort((a, b) => a - b)).toEqual(range(0, 25));
    expect(next.deferred.map((r) => r.i)).toEqual([15]);
    expect(next.submitted.map((s) => s.i)).toEqual([...range(8, 15), ...range(16, 24)]);
    // Answered within the step, and never sent (the step's own deferred line, not handed on).
    expect(res.submitted.map((s) => s.i)).toEqual(range(0, 8));
    expect(res.deferred.map((r) => r.i)).toEqual([24]);
    expect(sg.map((x) => x.i)).toEqual(range(8, 24));
  });

  it('a call still unanswered is handed on, and abandoned (deferred) at its deadline', async () => {
    const queue = {
      run: (_ep: string, _body: unknown, o: { signal?: AbortSignal }) =>
        new Promise((_, reject) => o.signal?.addEventListener('abort', () => reject(o.signal?.reason as Error))),
      retry: () => Promise.reject(new Error('unused')),
    } as unknown as Pick<QueueClient, 'run' | 'retry'>;
    const sub = await Submitter.open(queue, slowStore(10), req, undefined);
    const detach = new DetachedSubmissions();
    const res = emptyStepResult();
    const sends = new StepSends({ run, seq: 3, sub, record: recorder(res), detach, answered: () => undefined });
    await sends.sendAll([item(0)], () => undefined);
    const ending = sends.end();
    await vi.advanceTimersByTimeAsync(PATIENCE_MS + 10);
    const sg = await ending;
    expect(sg.map((x) => x.i)).toEqual([0]);
    expect(res.deferred).toEqual([]);

    const before = emptyStepResult();
    await reportSubmitting(slowStore(0), run, sg, before, detach, () => undefined);
    expect(before.deferred).toEqual([]); // still running: left open

    await vi.advanceTimersByTimeAsync(DETACHED_MS);
    const after = emptyStepResult();
    await reportSubmitting(slowStore(0), run, sg, after, detach, () => undefined);
    expect(after.deferred.map((r) => r.i)).toEqual([0]);
  });
});
