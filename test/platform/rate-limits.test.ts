import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addEndpoint, call, eventually, exampleCommand, testPlatform } from '../helpers/platform';

type P = Awaited<ReturnType<typeof testPlatform>>;

describe('rate limits per user, endpoint and operation', () => {
  let p: P;
  beforeAll(async () => {
    p = await testPlatform({ rateLimits: { requestsPerWorker: 5 } });
  });
  afterAll(() => p.dispose());

  it('/purge-queue allows 2 per 10 s, then 429 with Retry-After and a JSON error', async () => {
    const ep = addEndpoint(p, { name: 'purgelimit', command: ['false'], workersMax: 0 }).id;
    expect((await call(p.url, 'POST', `/v2/${ep}/purge-queue`)).status).toBe(200);
    expect((await call(p.url, 'POST', `/v2/${ep}/purge-queue`)).status).toBe(200);
    const r = await call(p.url, 'POST', `/v2/${ep}/purge-queue`);
    expect(r.status).toBe(429);
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(10);
    expect(r.body.error).toMatch(/rate limit of 2 purge-queue requests per 10 s/);
    // Limits are per endpoint: another endpoint is unaffected.
    const other = addEndpoint(p, { name: 'purgelimit2', command: ['false'], workersMax: 0 }).id;
    expect((await call(p.url, 'POST', `/v2/${other}/purge-queue`)).status).toBe(200);
  });

  it('/run allows 1000 per 10 s; the 1001st is refused and creates no job', async () => {
    const ep = addEndpoint(p, { name: 'runlimit', command: ['false'], workersMax: 0 }).id;
    const statuses: number[] = [];
    for (let i = 0; i < 1001; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, 1001 - i) }, () =>
          call(p.url, 'POST', `/v2/${ep}/run`, { body: { input: {} } }),
        ),
      );
      statuses.push(...batch.map((b) => b.status));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(1000);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    const h = await call(p.url, 'GET', `/v2/${ep}/health`);
    expect(h.body.jobs.inQueue).toBe(1000);
  });

  it('the dynamic limit max(base, running_workers x requests_per_worker) raises the base', async () => {
    const ep = addEndpoint(p, { name: 'dynamic', command: exampleCommand('echo'), workersMin: 1, workersMax: 1 }).id;
    await eventually(async () => (await call(p.url, 'GET', `/v2/${ep}/health`)).body.workers.idle === 1, 15_000);
    const results: number[] = [];
    for (let i = 0; i < 6; i++) results.push((await call(p.url, 'POST', `/v2/${ep}/purge-queue`)).status);
    // 1 worker x 5 requests per worker = 5 > base 2.
    expect(results).toEqual([200, 200, 200, 200, 200, 429]);
  });
});

describe('lowered rate limits (tests and benchmarks)', () => {
  let p: P;
  beforeAll(async () => {
    p = await testPlatform({
      rateLimits: { limits: { run: { perWindow: 3, concurrent: 50 } }, windowMs: 500, requestsPerWorker: 0 },
    });
  });
  afterAll(() => p.dispose());

  it('applies the given limit and window, and counts what it admitted and refused', async () => {
    const ep = addEndpoint(p, { name: 'lowered', command: ['false'], workersMax: 0 }).id;
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await call(p.url, 'POST', `/v2/${ep}/run`, { body: { input: {} } })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(p.limiter.counts(p.user.id, ep, 'run')).toEqual({ admitted: 3, limited: 1 });
    // The window is 500 ms: the oldest has left it a little later.
    await eventually(
      async () => (await call(p.url, 'POST', `/v2/${ep}/run`, { body: { input: {} } })).status === 200,
      2000,
      100,
    );
    expect(p.limiter.counts(p.user.id, ep, 'run').admitted).toBe(4);
  });
});
