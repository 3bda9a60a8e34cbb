/**
 * A step's submit journal during a refill (activities/batch/submitter.ts): one job is sent at a time
 * as slots free, and the entries answered close together share one append (one write and fsync on
 * a local store), each call resolving only once its own entry is in the store; outside a refill, and
 * once it ends, every call's entries are appended at once.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Submitter, type SubmitterQueue } from '../../activities/batch/submitter';
import { type StepRequest } from '../../activities/batch/types';
import { type ObjectStore } from '../../results/store/object-store';

const run = { workflowId: 'batch/b', runId: 'r1' };
const req = { run, seq: 1, endpointId: 'ep' } as StepRequest;

/** A journal in memory: the groups appended, in order. */
function memoryStore(groups: { i: number }[][]) {
  return {
    lines: () => Promise.resolve([]),
    append: (_key: string, group: { i: number }[]) => Promise.resolve(void groups.push(group)),
  } as unknown as ObjectStore;
}

/** A service that answers every `/run` at once. */
const queue = {
  run: (_ep: string, body: { input: { i: number } }) => Promise.resolve({ id: `j${body.input.i}`, status: 'IN_QUEUE' }),
  retry: () => Promise.resolve(),
} as unknown as SubmitterQueue;

/** Sends input `i` alone (as a refill does); resolves with whether its entry was in the store when the call resolved. */
async function sendOne(sub: Submitter, groups: { i: number }[][], i: number): Promise<boolean> {
  await sub.each(
    [i],
    async (x) => void (await sub.submit(x, { input: { i: x } }, 1, 'submit')),
    () => undefined,
  );
  return groups.flat().some((e) => e.i === i);
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Submitter journal groups', () => {
  it('a refill: entries answered within the group time share one append, each durable before its call resolves', async () => {
    const groups: { i: number }[][] = [];
    const sub = await Submitter.open(queue, memoryStore(groups), req, undefined);
    sub.group();
    const calls: Promise<boolean>[] = [];
    for (let i = 0; i < 5; i++) {
      calls.push(sendOne(sub, groups, i));
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(groups).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(await Promise.all(calls)).toEqual([true, true, true, true, true]);
    expect(groups.map((g) => g.map((e) => e.i))).toEqual([[0, 1, 2, 3, 4]]);
  });

  it('the refill ends: the entries waiting are appended at once, and later ones each at once', async () => {
    const groups: { i: number }[][] = [];
    const sub = await Submitter.open(queue, memoryStore(groups), req, undefined);
    sub.group();
    const first = sendOne(sub, groups, 0);
    await vi.advanceTimersByTimeAsync(1);
    await sub.ungroup();
    expect(await first).toBe(true);
    expect(await sendOne(sub, groups, 1)).toBe(true);
    expect(groups.map((g) => g.map((e) => e.i))).toEqual([[0], [1]]);
  });

  it('outside a refill every call appends its entries before it resolves', async () => {
    const groups: { i: number }[][] = [];
    const sub = await Submitter.open(queue, memoryStore(groups), req, undefined);
    expect(await sendOne(sub, groups, 0)).toBe(true);
    expect(await sendOne(sub, groups, 1)).toBe(true);
    expect(groups).toHaveLength(2);
  });
});
