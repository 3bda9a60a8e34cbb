import { describe, expect, it } from 'vitest';
import { RATE_LIMITS } from '../../contracts';
import { BudgetWithdrawnError, QueueClient, RateBudget, sleep } from '../../platform-api';
import { json, startServer } from './fake-server';

/** Acquires `n` grants of `status` on `ep` at once and returns when each was granted (ms since start). */
async function grantTimes(budget: RateBudget, n: number, ep = 'ep'): Promise<number[]> {
  const t0 = performance.now();
  return Promise.all(
    Array.from({ length: n }, async () => {
      const release = await budget.acquire('status', ep);
      release();
      return performance.now() - t0;
    }),
  );
}

/** Most grants inside any window of `windowMs` (times sorted). */
function maxInWindow(times: number[], windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let max = 0;
  for (let i = 0, j = 0; i < t.length; i++) {
    while (t[i]! - t[j]! >= windowMs) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}

describe('RateBudget', () => {
  // 5 per 300 ms window (+ 5 ms margin).
  const small = { limits: { status: { perWindow: 5, concurrent: null } }, windowMs: 300, marginMs: 5 };

  it("grants a window's worth at once, the next only once the first has left the window", async () => {
    const times = await grantTimes(new RateBudget(small), 8);
    expect(times.slice(0, 5).every((t) => t < 50)).toBe(true);
    expect(Math.min(...times.slice(5))).toBeGreaterThanOrEqual(300);
    expect(Math.max(...times.slice(5))).toBeLessThan(600);
  });

  it('never lets more than perWindow through in any window, over several windows of demand', async () => {
    const times = await grantTimes(new RateBudget(small), 17);
    expect(maxInWindow(times, 300)).toBe(5);
    // Demand the whole time: 17 grants take three full windows, not more.
    expect(Math.max(...times)).toBeGreaterThanOrEqual(900);
    expect(Math.max(...times)).toBeLessThan(1300);
  });

  it('keeps separate budgets per endpoint', async () => {
    const budget = new RateBudget(small);
    const [a, b] = await Promise.all([grantTimes(budget, 5, 'a'), grantTimes(budget, 5, 'b')]);
    expect([...a, ...b].every((t) => t < 50)).toBe(true);
  });

  it('a request in flight holds its place in the window until a window after its answer', async () => {
    const budget = new RateBudget({
      limits: { status: { perWindow: 1, concurrent: null } },
      windowMs: 100,
      marginMs: 2,
    });
    const t0 = performance.now();
    // The service counts a request at some time between sending and answer: the next may follow
    // only a window after the answer.
    await budget.run('status', 'ep', () => sleep(150));
    const answered = performance.now() - t0;
    (await budget.acquire('status', 'ep'))();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(answered + 95);
  });

  it('caps concurrency', async () => {
    const budget = new RateBudget({ limits: { cancel: { perWindow: 100, concurrent: 2 } } });
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 6 }, () =>
        budget.run('cancel', 'ep', async () => {
          peak = Math.max(peak, ++active);
          await sleep(20);
          active--;
        }),
      ),
    );
    expect(peak).toBe(2);
  });

  it('serves higher priorities first, FIFO within one; lower ones take nothing while a higher one waits', async () => {
    const budget = new RateBudget({
      limits: { status: { perWindow: 2, concurrent: null } },
      windowMs: 200,
      marginMs: 5,
    });
    // The window is full: everything below waits.
    for (const release of await Promise.all([budget.acquire('status', 'ep'), budget.acquire('status', 'ep')]))
      release();
    const order: string[] = [];
    const take = (name: string, priority: number) =>
      budget.acquire('status', 'ep', { priority }).then((r) => {
        order.push(name);
        r();
      });
    const all = [
      take('low1', 1),
      take('low2', 1),
      take('mid1', 5),
      take('high1', 9),
      take('low3', 1),
      take('high2', 9),
      take('mid2', 5),
    ];
    expect(budget.waiting('status', 'ep')).toBe(7);
    await Promise.all(all);
    expect(order).toEqual(['high1', 'high2', 'mid1', 'mid2', 'low1', 'low2', 'low3']);
  });

  it('a later higher-priority waiter overtakes lower ones already waiting', async () => {
    const budget = new RateBudget({
      limits: { status: { perWindow: 1, concurrent: null } },
      windowMs: 150,
      marginMs: 5,
    });
    (await budget.acquire('status', 'ep'))();
    const order: string[] = [];
    const lows = [1, 2, 3].map((n) =>
      budget.acquire('status', 'ep', { priority: 0 }).then((r) => (order.push(`low${n}`), r())),
    );
    await sleep(20);
    const high = budget.acquire('status', 'ep', { priority: 9 }).then((r) => (order.push('high'), r()));
    await Promise.all([...lows, high]);
    expect(order[0]).toBe('high');
  });

  it('a waiter whose withdrawIf says so at its turn leaves unsent; the next one gets the place', async () => {
    const budget = new RateBudget({
      limits: { status: { perWindow: 1, concurrent: null } },
      windowMs: 100,
      marginMs: 2,
    });
    (await budget.acquire('status', 'ep'))();
    let yieldNow = false;
    const withdrawn = budget.acquire('status', 'ep', { withdrawIf: () => yieldNow });
    const next = budget.acquire('status', 'ep');
    yieldNow = true;
    await expect(withdrawn).rejects.toBeInstanceOf(BudgetWithdrawnError);
    const t0 = performance.now();
    (await next)();
    expect(performance.now() - t0).toBeLessThan(30);
  });

  it('tells a caller how long it waited', async () => {
    const budget = new RateBudget(small);
    const waits: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async () =>
        (await budget.acquire('status', 'ep', { onWait: (ms) => waits.push(ms) }))(),
      ),
    );
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(290);
  });

  it('a pause holds every waiter of the lane until it ends, and only that lane', async () => {
    const budget = new RateBudget(small);
    budget.pause('status', 'ep', 250);
    const t0 = performance.now();
    const [paused, other] = await Promise.all([grantTimes(budget, 3, 'ep'), grantTimes(budget, 3, 'other')]);
    expect(Math.min(...paused)).toBeGreaterThanOrEqual(240);
    expect(other.every((t) => t < 50)).toBe(true);
    expect(performance.now() - t0).toBeLessThan(600);
  });

  it('after a 429 the lane uses 70 % of its window, however many 429s the window brought', async () => {
    const budget = new RateBudget({
      limits: { status: { perWindow: 10, concurrent: null } },
      windowMs: 1000,
      marginMs: 2,
    });
    // One episode: twenty 429s answered together reduce the share once.
    for (let i = 0; i < 20; i++) budget.pause('status', 'ep', 20);
    // Seen from the first grant (however late a loaded machine started the test): 7 at once, 3 a window later.
    const times = await grantTimes(budget, 10);
    const first = Math.min(...times);
    expect(times.filter((t) => t - first < 500)).toHaveLength(7);
    expect(Math.min(...times.filter((t) => t - first >= 500)) - first).toBeGreaterThanOrEqual(990);
  });

  it('can be disabled, scaled, and rescaled while callers wait', async () => {
    expect((await grantTimes(new RateBudget({ ...small, enabled: false }), 50)).every((t) => t < 50)).toBe(true);
    const half = new RateBudget({ ...small, limits: { status: { perWindow: 10, concurrent: null } }, scale: 0.5 });
    expect(half.limitsOf('status')).toEqual({ perWindow: 5, concurrent: null });
    const times = await grantTimes(half, 6);
    expect(times[5]).toBeGreaterThanOrEqual(300);
    const budget = new RateBudget({ ...small, limits: { status: { perWindow: 4, concurrent: null } }, scale: 0.5 });
    const t0 = performance.now();
    const waiting = grantTimes(budget, 4);
    await sleep(30);
    budget.setScale(1);
    // Without the new scale the last two would wait for the 300 ms window.
    expect(Math.max(...(await waiting))).toBeLessThan(250);
    expect(performance.now() - t0).toBeLessThan(280);
  });

  it('defaults to the contract limits', () => {
    const budget = new RateBudget();
    expect(budget.limitsOf('run')).toEqual({
      perWindow: RATE_LIMITS.run.perWindow,
      concurrent: RATE_LIMITS.run.concurrent,
    });
    budget.setScale(0.25);
    expect(budget.limitsOf('run')).toEqual({ perWindow: 250, concurrent: 50 });
    expect(() => budget.setScale(0)).toThrow(RangeError);
  });

  it('an aborted waiter leaves the queue and takes nothing', async () => {
    const budget = new RateBudget({
      limits: { status: { perWindow: 1, concurrent: null } },
      windowMs: 300,
      marginMs: 5,
    });
    (await budget.acquire('status', 'ep'))();
    const ac = new AbortController();
    const waiting = budget.acquire('status', 'ep', ac.signal);
    ac.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    expect(budget.waiting('status', 'ep')).toBe(0);
    const t0 = performance.now();
    (await budget.acquire('status', 'ep'))();
    // Granted when the first leaves the window, not a window later.
    expect(performance.now() - t0).toBeLessThan(450);
  });
});

describe('QueueClient with a rate budget', () => {
  it('spaces requests to the server', async () => {
    const server = await startServer((_req, res) => json(res, 200, { id: 'j', status: 'CANCELLED' }));
    const budget = new RateBudget({ limits: { cancel: { perWindow: 2, concurrent: 1 } }, windowMs: 200 });
    const client = new QueueClient({ baseUrl: server.baseUrl, apiKey: 'k', rateBudget: budget });
    const t0 = performance.now();
    await Promise.all([1, 2, 3, 4].map((i) => client.cancel('ep', `j${i}`)));
    // Two per window: the last two wait for the first two to leave it.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
    expect(server.seen).toHaveLength(4);
    await client.close();
    await server.close();
  });

  it('a 429 pauses the whole endpoint for its Retry-After: one 429, not one per caller', async () => {
    const at: number[] = [];
    const server = await startServer((_req, res, n) => {
      at.push(performance.now());
      if (n === 1) json(res, 429, { error: 'rate limit' }, { 'retry-after': '1' });
      else json(res, 200, { id: 'j', status: 'IN_QUEUE' });
    });
    const budget = new RateBudget({ limits: { run: { perWindow: 100, concurrent: 1 } } });
    const client = new QueueClient({
      baseUrl: server.baseUrl,
      apiKey: 'k',
      rateBudget: budget,
      retry: { baseDelayMs: 1 },
    });
    const acks = await Promise.all([1, 2, 3, 4, 5].map((i) => client.run('ep', { input: { i } }, { priority: i })));
    expect(acks).toHaveLength(5);
    expect(server.seen).toHaveLength(6);
    // Every request after the 429 came once its Retry-After had passed.
    expect(Math.min(...at.slice(1)) - at[0]!).toBeGreaterThanOrEqual(950);
    await client.close();
    await server.close();
  });

  it('passes priority to the budget', async () => {
    const server = await startServer((_req, res) => json(res, 200, { id: 'j', status: 'IN_QUEUE' }));
    const budget = new RateBudget({ limits: { run: { perWindow: 1, concurrent: null } }, windowMs: 150, marginMs: 5 });
    const client = new QueueClient({ baseUrl: server.baseUrl, apiKey: 'k', rateBudget: budget });
    await client.run('ep', { input: { n: 0 } });
    const order: number[] = [];
    const calls = [1, 2, 3].map((p) => client.run('ep', { input: { p } }, { priority: p }).then(() => order.push(p)));
    await Promise.all(calls);
    expect(order).toEqual([3, 2, 1]);
    expect(client.rateBudget).toBe(budget);
    await client.close();
    await server.close();
  });
});
