import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addEndpoint, call, eventually, testPlatform, waitForStatus } from '../helpers/platform';

type P = Awaited<ReturnType<typeof testPlatform>>;

describe('queue API: job lifecycle through HTTP', () => {
  let p: P;
  let echo: string;
  let sleep: string;
  let fail: string;
  let stream: string;

  beforeAll(async () => {
    p = await testPlatform();
    echo = p.examples.echo!.id;
    sleep = p.examples.sleep!.id;
    fail = p.examples.fail!.id;
    stream = p.examples.stream!.id;
  });
  afterAll(() => p.dispose());

  it('/run answers IN_QUEUE with an id, and the job completes with output and ms times', async () => {
    const run = await call(p.url, 'POST', `/v2/${echo}/run`, { body: { input: { hello: 'world' } } });
    expect(run.status).toBe(200);
    expect(run.body).toEqual({ id: expect.any(String), status: 'IN_QUEUE' });
    const done = await waitForStatus(p.url, echo, run.body.id, ['COMPLETED']);
    expect(done.output).toEqual({ hello: 'world' });
    expect(done.delayTime).toBeGreaterThanOrEqual(0);
    expect(done.executionTime).toBeGreaterThanOrEqual(0);
    expect(done.executionTime).toBeLessThan(10_000);
  });

  it('/runsync waits for the result; when the wait runs out it answers 200 with id and status', async () => {
    const quick = await call(p.url, 'POST', `/v2/${echo}/runsync`, { body: { input: { n: 1 } } });
    expect(quick.status).toBe(200);
    expect(quick.body).toMatchObject({ status: 'COMPLETED', output: { n: 1 }, id: expect.any(String) });
    expect(typeof quick.body.delayTime).toBe('number');

    const slow = await call(p.url, 'POST', `/v2/${sleep}/runsync?wait=1000`, { body: { input: { ms: 2500 } } });
    expect(slow.status).toBe(200);
    expect(['IN_QUEUE', 'IN_PROGRESS']).toContain(slow.body.status);
    expect(slow.body.output).toBeUndefined();
    const later = await waitForStatus(p.url, sleep, slow.body.id, ['COMPLETED']);
    expect(later.output).toEqual({ slept: 2500 });
  });

  it('status-sync long-polls until the job finishes', async () => {
    const run = await call(p.url, 'POST', `/v2/${sleep}/run`, { body: { input: { ms: 500 } } });
    const r = await call(p.url, 'GET', `/v2/${sleep}/status-sync/${run.body.id}?wait=20000`);
    expect(r.body).toMatchObject({ id: run.body.id, status: 'COMPLETED', output: { slept: 500 } });
  });

  it('rejects a runsync wait outside 1000..300000 ms', async () => {
    for (const wait of ['999', '300001', 'abc', '1.5']) {
      const r = await call(p.url, 'POST', `/v2/${echo}/runsync?wait=${wait}`, { body: { input: {} } });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/wait/);
    }
  });

  it('a handler error makes the job FAILED with an error field', async () => {
    const r = await call(p.url, 'POST', `/v2/${fail}/runsync`, { body: { input: { message: 'boom 42' } } });
    expect(r.body.status).toBe('FAILED');
    expect(JSON.stringify(r.body.error)).toContain('boom 42');
  });

  it('streams chunks in order, each delivered once, with the chunk envelope the clients parse', async () => {
    const run = await call(p.url, 'POST', `/v2/${stream}/run`, { body: { input: { chunks: 6, delayMs: 50 } } });
    const seen: unknown[] = [];
    let status = 'IN_QUEUE';
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const r = await call(p.url, 'GET', `/v2/${stream}/stream/${run.body.id}`);
      expect(r.status).toBe(200);
      expect(Array.isArray(r.body.stream)).toBe(true);
      seen.push(...r.body.stream.map((c: { output: unknown }) => c.output));
      status = r.body.status;
      if (status === 'COMPLETED' && r.body.stream.length === 0) break;
    }
    expect(status).toBe('COMPLETED');
    expect(seen).toEqual([0, 1, 2, 3, 4, 5].map((i) => ({ index: i, text: `chunk ${i}` })));
    const again = await call(p.url, 'POST', `/v2/${stream}/stream/${run.body.id}`);
    expect(again.body).toEqual({ id: run.body.id, status: 'COMPLETED', stream: [] });
  });

  it('progress_update output shows as the output of an IN_PROGRESS status', async () => {
    const run = await call(p.url, 'POST', `/v2/${sleep}/run`, { body: { input: { ms: 3000, progress: true } } });
    const inProgress = await eventually(async () => {
      const r = await call(p.url, 'GET', `/v2/${sleep}/status/${run.body.id}`);
      return r.body.status === 'IN_PROGRESS' && r.body.output !== undefined ? r.body : undefined;
    });
    expect(inProgress.output).toHaveProperty('pct');
    const done = await waitForStatus(p.url, sleep, run.body.id, ['COMPLETED']);
    expect(done.output).toEqual({ slept: 3000 });
  });

  it('cancel of a queued job removes it at once', async () => {
    const parked = addEndpoint(p, { name: 'parked', command: ['false'], workersMax: 0 });
    const run = await call(p.url, 'POST', `/v2/${parked.id}/run`, { body: { input: {} } });
    const c = await call(p.url, 'POST', `/v2/${parked.id}/cancel/${run.body.id}`, { raw: '' });
    expect(c.status).toBe(200);
    expect(c.body).toEqual({ id: run.body.id, status: 'CANCELLED' });
    const h = await call(p.url, 'GET', `/v2/${parked.id}/health`);
    expect(h.body.jobs.inQueue).toBe(0);
  });

  it('cancel of a running job stops it on the worker, and its late result is ignored', async () => {
    const run = await call(p.url, 'POST', `/v2/${sleep}/run`, { body: { input: { ms: 30_000 } } });
    await waitForStatus(p.url, sleep, run.body.id, ['IN_PROGRESS']);
    const c = await call(p.url, 'POST', `/v2/${sleep}/cancel/${run.body.id}`, { body: {} });
    expect(c.body).toEqual({ id: run.body.id, status: 'CANCELLED' });
    // The worker got the stop order and is free again well before the 30 s sleep would end.
    await eventually(async () => {
      const h = await call(p.url, 'GET', `/v2/${sleep}/health`);
      return h.body.workers.running === 0;
    }, 10_000);
    const s = await call(p.url, 'GET', `/v2/${sleep}/status/${run.body.id}`);
    expect(s.body.status).toBe('CANCELLED');
  });

  it('cancel of a finished job leaves it as it is', async () => {
    const r = await call(p.url, 'POST', `/v2/${echo}/runsync`, { body: { input: { x: 1 } } });
    const c = await call(p.url, 'POST', `/v2/${echo}/cancel/${r.body.id}`);
    expect(c.body).toEqual({ id: r.body.id, status: 'COMPLETED' });
  });

  it('retry: only FAILED/TIMED_OUT, same id, original input, previous output removed', async () => {
    const r = await call(p.url, 'POST', `/v2/${fail}/runsync`, { body: { input: { message: 'first' } } });
    expect(r.body.status).toBe('FAILED');
    const retry = await call(p.url, 'POST', `/v2/${fail}/retry/${r.body.id}`);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ id: r.body.id, status: 'IN_QUEUE' });
    const queued = await call(p.url, 'GET', `/v2/${fail}/status/${r.body.id}`);
    // The idle worker may take the job and fail it again before this read; until then the old error is gone.
    if (queued.body.status !== 'FAILED') expect(queued.body.error).toBeUndefined();
    const again = await waitForStatus(p.url, fail, r.body.id, ['FAILED']);
    expect(JSON.stringify(again.error)).toContain('first');
    expect(again.retries).toBe(1);
    const health = await call(p.url, 'GET', `/v2/${fail}/health`);
    expect(health.body.jobs.retried).toBeGreaterThanOrEqual(1);

    const ok = await call(p.url, 'POST', `/v2/${echo}/runsync`, { body: { input: {} } });
    const bad = await call(p.url, 'POST', `/v2/${echo}/retry/${ok.body.id}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/only FAILED or TIMED_OUT/);
  });

  it('purge-queue removes queued jobs only and reports how many', async () => {
    const ep = addEndpoint(p, { name: 'purge', command: ['false'], workersMax: 0 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push((await call(p.url, 'POST', `/v2/${ep.id}/run`, { body: { input: { i } } })).body.id);
    const r = await call(p.url, 'POST', `/v2/${ep.id}/purge-queue`, { raw: '' });
    expect(r.body).toEqual({ removed: 4, status: 'completed' });
    const again = await call(p.url, 'POST', `/v2/${ep.id}/purge-queue`, { body: {} });
    expect(again.body).toEqual({ removed: 0, status: 'completed' });
  });

  it('health reports job and worker counts', async () => {
    const h = await call(p.url, 'GET', `/v2/${echo}/health`);
    expect(h.status).toBe(200);
    expect(h.body.jobs).toEqual({ completed: expect.any(Number), failed: 0, inProgress: 0, inQueue: 0, retried: 0 });
    expect(h.body.jobs.completed).toBeGreaterThanOrEqual(3);
    expect(h.body.workers).toMatchObject({
      idle: expect.any(Number),
      running: 0,
      initializing: expect.any(Number),
      ready: expect.any(Number),
      throttled: 0,
    });
  });
});
