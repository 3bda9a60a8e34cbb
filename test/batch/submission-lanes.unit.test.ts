/**
 * A step's submission lanes (activities/batch/lanes.ts, Submitter.each) on a fake clock: a call
 * refused by a 429 waits out its Retry-After without its lane, the next input takes the lane, and
 * the refused input is sent again once, with its own idempotency key, after the wait.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Lanes } from '../../activities/batch/lanes';
import { Submitter, type Submitted } from '../../activities/batch/submitter';
import { type StepRequest } from '../../activities/batch/types';
import { IDEMPOTENCY_HEADERS } from '../../contracts/queue';
import { QueueClient, RateLimitedError } from '../../platform-api';
import { type HttpRequest, type HttpResponse } from '../../platform-api/http';
import { type ObjectStore } from '../../results/store/object-store';

const run = { workflowId: 'batch/b', runId: 'r1' };
const req = { run, seq: 1, endpointId: 'ep' } as StepRequest;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A journal in memory: every entry appended, in order. */
const memoryStore = (entries: unknown[]) =>
  ({
    lines: () => Promise.resolve([]),
    append: (_key: string, group: unknown[]) => Promise.resolve(void entries.push(...group)),
  }) as unknown as ObjectStore;

/** What the fake service saw of one `/run`. */
interface Sent {
  i: number;
  key: string | undefined;
  at: number;
}

/**
 * The real queue client (its rate budget off: the lane is under test, not the window), its HTTP
 * replaced by a service answering each `/run` in 100 ms, and the first `/run` of each input in
 * `refused` with a 429 asking to wait 1 s.
 */
function fakeService(refused: Set<number>) {
  const sent: Sent[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const send = async (r: HttpRequest): Promise<HttpResponse> => {
    const i = (JSON.parse(r.body!) as { input: { i: number } }).input.i;
    const first = !sent.some((s) => s.i === i);
    sent.push({ i, key: r.headers?.[IDEMPOTENCY_HEADERS.key], at: Date.now() });
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    await sleep(100);
    inFlight--;
    if (first && refused.has(i))
      throw Object.assign(new RateLimitedError('run failed with HTTP 429', r.ctx), { retryAfterMs: 1000 });
    return { status: 200, body: { id: `j${i}`, status: 'IN_QUEUE' }, notJson: false, headers: {} };
  };
  const queue = new QueueClient({ baseUrl: 'http://127.0.0.1:9/v2', apiKey: 'k', rateBudget: false });
  Object.assign(queue as unknown as { http: unknown }, { http: { send } });
  return { queue, sent, maxInFlight: () => maxInFlight };
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Submitter.each with a 429', () => {
  it('a refused call gives its lane to the next input while it waits out its Retry-After', async () => {
    // 64 inputs over 16 lanes, 100 ms a call; inputs 0-7 refused once. Held lanes (before): the
    // other 56 inputs shared 8 lanes for a second, the last answered at 700 ms.
    const service = fakeService(new Set(range(0, 8)));
    const journal: unknown[] = [];
    const sub = await Submitter.open(service.queue, memoryStore(journal), req, undefined);
    const answered = new Map<number, { at: number; r: Submitted }>();
    const t0 = Date.now();
    const done = sub.each(
      range(0, 64),
      async (i, lane) => {
        const r = await sub.submit(i, { input: { i } }, 1, 'submit', { lane });
        answered.set(i, { at: Date.now() - t0, r });
      },
      () => undefined,
    );
    await vi.advanceTimersByTimeAsync(2000);
    await done;

    for (const i of range(8, 64)) expect(answered.get(i)!.at, `input ${i}`).toBeLessThanOrEqual(400);
    for (const i of range(0, 8)) {
      const sends = service.sent.filter((s) => s.i === i);
      expect(sends).toHaveLength(2); // refused, then sent once more with the same key
      expect(sends[1]!.key).toBe(sends[0]!.key);
      expect(sends[1]!.at - sends[0]!.at).toBeGreaterThanOrEqual(1100); // its answer at 100 ms, then 1 s
      expect(answered.get(i)!.r).toMatchObject({ i, id: `j${i}` });
    }
    expect(service.sent).toHaveLength(64 + 8);
    expect(service.maxInFlight()).toBeLessThanOrEqual(16);
    expect(sub.limited).toBe(false);
    expect((journal as { i: number }[]).map((j) => j.i).sort((a, b) => a - b)).toEqual(range(0, 64));
  });
});

describe('Lanes', () => {
  it('a call back from its wait takes the first free lane, before inputs not yet started', async () => {
    const lanes = new Lanes(1);
    const order: string[] = [];
    await lanes.take(); // call A holds the only lane
    const b = lanes.take().then(() => order.push('B'));
    const back = lanes.lane.wait(100).then(() => order.push('A back'));
    await b; // A's wait gave B the lane
    const c = lanes.take().then(() => order.push('C'));
    await vi.advanceTimersByTimeAsync(100);
    expect(order).toEqual(['B']); // A's wait is over, but B still holds the lane
    lanes.give(); // B answered
    await back;
    lanes.give(); // A answered
    await c;
    expect(order).toEqual(['B', 'A back', 'C']);
    lanes.give();
    expect(lanes.busy).toBe(0);
  });

  it('no more calls wait without a lane than there are lanes: a further one keeps its lane', async () => {
    const lanes = new Lanes(1);
    await lanes.take();
    const a = lanes.lane.wait(100); // A waits without its lane
    await lanes.take(); // B got it
    expect(lanes.busy).toBe(1);
    let cStarted = false;
    const c = lanes.take().then(() => (cStarted = true));
    const b = lanes.lane.wait(100); // B waits holding its lane: A already waits without one
    await vi.advanceTimersByTimeAsync(50);
    expect(cStarted).toBe(false);
    await vi.advanceTimersByTimeAsync(50);
    await b;
    lanes.give(); // B answered: A, back from its wait, goes first
    await a;
    expect(cStarted).toBe(false);
    lanes.give(); // A answered
    await c;
    lanes.give();
    expect(lanes.busy).toBe(0);
  });

  it('an abandoned wait holds its lane again before it rejects, so its end gives it back once', async () => {
    const lanes = new Lanes(2);
    await lanes.take();
    const ac = new AbortController();
    const waiting = lanes.lane.wait(1000, ac.signal);
    expect(lanes.busy).toBe(0);
    ac.abort(new Error('abandoned'));
    await expect(waiting).rejects.toThrow('abandoned');
    expect(lanes.busy).toBe(1);
    lanes.give();
    expect(lanes.busy).toBe(0);
  });
});
