import { createServer, type IncomingMessage } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdjustableClock } from '../../platform';
import { addEndpoint, call, eventually, testPlatform, waitForStatus } from '../helpers/platform';

type P = Awaited<ReturnType<typeof testPlatform>>;
const MIN = 60_000;

describe('clock-driven rules: ttl, executionTimeout, retention (adjustable clock)', () => {
  let p: P;
  const clock = new AdjustableClock();
  let parked: string;

  beforeAll(async () => {
    p = await testPlatform({ clock, sweepIntervalMs: 20 });
    parked = addEndpoint(p, { name: 'parked', command: ['false'], workersMax: 0 }).id;
  });
  afterAll(() => p.dispose());

  const advance = (ms: number) => {
    clock.advance(ms);
    p.sweep();
  };

  it('ttl counts from submission and deletes a queued job (then 404)', async () => {
    const run = await call(p.url, 'POST', `/v2/${parked}/run`, { body: { input: {}, policy: { ttl: 10_000 } } });
    advance(9_000);
    expect((await call(p.url, 'GET', `/v2/${parked}/status/${run.body.id}`)).status).toBe(200);
    advance(1_500);
    const gone = await call(p.url, 'GET', `/v2/${parked}/status/${run.body.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatch(/not found/);
  });

  it('status?ttl= sets a new lifespan counted from submission', async () => {
    const run = await call(p.url, 'POST', `/v2/${parked}/run`, { body: { input: {} } });
    const set = await call(p.url, 'GET', `/v2/${parked}/status/${run.body.id}?ttl=20000`);
    expect(set.status).toBe(200);
    advance(21_000);
    expect((await call(p.url, 'GET', `/v2/${parked}/status/${run.body.id}`)).status).toBe(404);
    const bad = await call(p.url, 'GET', `/v2/${parked}/status/nope?ttl=5`);
    expect(bad.status).toBe(404);
    const run2 = await call(p.url, 'POST', `/v2/${parked}/run`, { body: { input: {} } });
    const badTtl = await call(p.url, 'GET', `/v2/${parked}/status/${run2.body.id}?ttl=5`);
    expect(badTtl.status).toBe(400);
    expect(badTtl.body.error).toMatch(/ttl must be at least 10000 ms/);
  });

  it('ttl expiring mid-run removes the job at once (404) and stops it on the worker', async () => {
    const sleep = p.examples.sleep!.id;
    const run = await call(p.url, 'POST', `/v2/${sleep}/run`, {
      body: { input: { ms: 30_000 }, policy: { ttl: 60_000 } },
    });
    await waitForStatus(p.url, sleep, run.body.id, ['IN_PROGRESS']);
    advance(61_000);
    expect((await call(p.url, 'GET', `/v2/${sleep}/status/${run.body.id}`)).status).toBe(404);
    await eventually(async () => (await call(p.url, 'GET', `/v2/${sleep}/health`)).body.workers.running === 0, 10_000);
  });

  it('executionTimeout counts only while running and ends in TIMED_OUT, which can be retried', async () => {
    const queuedLong = await call(p.url, 'POST', `/v2/${parked}/run`, {
      body: { input: {}, policy: { executionTimeout: 5_000 } },
    });
    advance(6_000);
    expect((await call(p.url, 'GET', `/v2/${parked}/status/${queuedLong.body.id}`)).body.status).toBe('IN_QUEUE');

    const sleep = p.examples.sleep!.id;
    const run = await call(p.url, 'POST', `/v2/${sleep}/run`, {
      body: { input: { ms: 20_000 }, policy: { executionTimeout: 5_000 } },
    });
    await waitForStatus(p.url, sleep, run.body.id, ['IN_PROGRESS']);
    advance(5_500);
    const timedOut = await call(p.url, 'GET', `/v2/${sleep}/status/${run.body.id}`);
    expect(timedOut.body.status).toBe('TIMED_OUT');
    expect(timedOut.body.error).toMatch(/executionTimeout/);
    const retry = await call(p.url, 'POST', `/v2/${sleep}/retry/${run.body.id}`);
    expect(retry.body).toEqual({ id: run.body.id, status: 'IN_QUEUE' });
    await call(p.url, 'POST', `/v2/${sleep}/cancel/${run.body.id}`);
  });

  it('results are kept 30 min after /run and 1 min after /runsync; an expired FAILED job cannot be retried', async () => {
    const echo = p.examples.echo!.id;
    const fail = p.examples.fail!.id;
    const sync = await call(p.url, 'POST', `/v2/${echo}/runsync`, { body: { input: { s: 1 } } });
    const asyncRun = await call(p.url, 'POST', `/v2/${echo}/run`, { body: { input: { a: 1 } } });
    const failed = await call(p.url, 'POST', `/v2/${fail}/run`, { body: { input: {} } });
    await waitForStatus(p.url, echo, asyncRun.body.id, ['COMPLETED']);
    await waitForStatus(p.url, fail, failed.body.id, ['FAILED']);
    advance(1 * MIN + 1000);
    expect((await call(p.url, 'GET', `/v2/${echo}/status/${sync.body.id}`)).status).toBe(404);
    expect((await call(p.url, 'GET', `/v2/${echo}/status/${asyncRun.body.id}`)).body.status).toBe('COMPLETED');
    advance(29 * MIN);
    expect((await call(p.url, 'GET', `/v2/${echo}/status/${asyncRun.body.id}`)).status).toBe(404);
    const retry = await call(p.url, 'POST', `/v2/${fail}/retry/${failed.body.id}`);
    expect(retry.status).toBe(404);
  });
});

describe('webhooks', () => {
  let p: P;
  const received: { status: number; body: any }[] = [];
  let answers: number[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString()));
    req.on('end', () => {
      const status = answers.shift() ?? 200;
      received.push({ status, body: JSON.parse(data) });
      res.writeHead(status).end();
    });
  });
  let hook: string;

  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    p = await testPlatform({ webhook: { retryDelayMs: 100 } });
  });
  afterAll(async () => {
    await p.dispose();
    server.close();
  });

  it('POSTs the job record when the job finishes', async () => {
    received.length = 0;
    answers = [];
    const echo = p.examples.echo!.id;
    const r = await call(p.url, 'POST', `/v2/${echo}/runsync`, { body: { input: { w: 1 }, webhook: hook } });
    await eventually(() => received.length === 1);
    expect(received[0]!.body).toMatchObject({ id: r.body.id, status: 'COMPLETED', output: { w: 1 } });
  });

  it('retries a failing receiver 2 more times, and FAILED jobs notify too', async () => {
    received.length = 0;
    answers = [500, 503, 500, 500];
    const fail = p.examples.fail!.id;
    const r = await call(p.url, 'POST', `/v2/${fail}/run`, { body: { input: { message: 'x' }, webhook: hook } });
    await eventually(() => received.length === 3);
    await new Promise((res) => setTimeout(res, 400));
    expect(received).toHaveLength(3);
    expect(received.every((x) => x.body.id === r.body.id && x.body.status === 'FAILED')).toBe(true);
  });

  it('stops retrying once the receiver answers 200', async () => {
    received.length = 0;
    answers = [500, 200];
    const echo = p.examples.echo!.id;
    await call(p.url, 'POST', `/v2/${echo}/run`, { body: { input: {}, webhook: hook } });
    await eventually(() => received.length === 2);
    await new Promise((res) => setTimeout(res, 400));
    expect(received.map((x) => x.status)).toEqual([500, 200]);
  });
});
