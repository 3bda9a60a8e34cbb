import { describe, expect, it } from 'vitest';
import { RATE_LIMITS } from '../../contracts';
import { QueueClient, RateBudget, Semaphore, TokenBucket, sleep } from '../../platform-api';
import { json, startServer } from './fake-server';

/** Acquires `n` tokens of `status` on `ep` one after another and returns when each was granted (ms since start). */
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

describe('TokenBucket', () => {
  it('gives the burst at once, then one token per 1/rate', () => {
    const b = new TokenBucket(3, 10 / 1000);
    expect([b.reserve(), b.reserve(), b.reserve()]).toEqual([0, 0, 0]);
    expect(b.reserve()).toBeGreaterThan(90);
    expect(b.reserve()).toBeGreaterThan(190);
  });
});

describe('Semaphore', () => {
  it('hands released slots to waiters in order', async () => {
    const s = new Semaphore(1);
    await s.acquire();
    const order: number[] = [];
    const a = s.acquire().then(() => order.push(1));
    const b = s.acquire().then(() => order.push(2));
    s.release();
    await a;
    s.release();
    await b;
    expect(order).toEqual([1, 2]);
    expect(s.inUse).toBe(1);
  });
});

describe('RateBudget', () => {
  // 5 per 500 ms window: burst 5, then one token every 100 ms.
  const small = { limits: { status: { perWindow: 5, concurrent: null } }, windowMs: 500 };

  it('lets the burst through and spaces the rest at perWindow / window', async () => {
    const times = await grantTimes(new RateBudget(small), 8);
    expect(times.slice(0, 5).every((t) => t < 50)).toBe(true);
    expect(times[5]).toBeGreaterThanOrEqual(90);
    expect(times[7]).toBeGreaterThanOrEqual(290);
    expect(times[7]).toBeLessThan(600);
  });

  it('keeps separate budgets per endpoint', async () => {
    const budget = new RateBudget(small);
    const [a, b] = await Promise.all([grantTimes(budget, 5, 'a'), grantTimes(budget, 5, 'b')]);
    expect([...a, ...b].every((t) => t < 50)).toBe(true);
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

  it('can be disabled or scaled', async () => {
    expect((await grantTimes(new RateBudget({ ...small, enabled: false }), 50)).every((t) => t < 50)).toBe(true);
    const half = await grantTimes(new RateBudget({ ...small, limits: { status: { perWindow: 10, concurrent: null } }, scale: 0.5 }), 6);
    expect(half[5]).toBeGreaterThanOrEqual(90);
  });

  it('defaults to the contract limits', async () => {
    // The whole `run` burst is granted at once; 10 more need 10 refills of 10 ms each.
    const budget = new RateBudget();
    const burst = RATE_LIMITS.run.perWindow;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: burst + 10 }, async () => (await budget.acquire('run', 'ep'))()),
    );
    expect(performance.now() - t0).toBeGreaterThanOrEqual(60);
  });

  it('an aborted waiter gives its token back', async () => {
    const budget = new RateBudget({ limits: { status: { perWindow: 1, concurrent: null } }, windowMs: 300 });
    (await budget.acquire('status', 'ep'))();
    const ac = new AbortController();
    const waiting = budget.acquire('status', 'ep', ac.signal);
    ac.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    // Without the refund the next caller would queue behind the abandoned reservation (~600 ms).
    const t0 = performance.now();
    (await budget.acquire('status', 'ep'))();
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
    // Burst 2, then 100 ms per token.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
    expect(server.seen).toHaveLength(4);
    await client.close();
    await server.close();
  });
});
