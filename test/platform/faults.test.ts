import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueClient, isPlatformApiError } from '../../platform-api';
import { type FaultsInput } from '../../platform';
import { listenLocal } from '../helpers/listen';
import { addEndpoint, call, eventually, testPlatform, waitForStatus } from '../helpers/platform';
import { sluice } from '../cli/run-sluice';

type P = Awaited<ReturnType<typeof testPlatform>>;

/** A platform with `faults` and an endpoint with no workers (jobs stay queued). */
async function faulty(faults: FaultsInput, extra: Parameters<typeof testPlatform>[0] = {}) {
  const p = await testPlatform({ faults, seedExamples: false, ...extra });
  const parked = addEndpoint(p, { name: 'parked', command: ['false'], workersMax: 0 }).id;
  return { p, parked };
}

/** The statuses of `n` health calls in a row. */
async function healthStatuses(p: P, ep: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await call(p.url, 'GET', `/v2/${ep}/health`)).status);
  return out;
}

/** A webhook receiver counting the calls per job id. */
async function receiver() {
  const calls = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const id = (JSON.parse(body) as { id: string }).id;
      calls.set(id, (calls.get(id) ?? 0) + 1);
      res.writeHead(200).end();
    });
  });
  return { calls, ...(await listenLocal(server)) };
}

describe('fault mode: HTTP faults of the client-facing APIs', () => {
  it('429=1 answers every queue call 429 with Retry-After, and leaves the worker protocol and REST alone', async () => {
    const { p, parked } = await faulty({ rateLimited: 1, retryAfterSeconds: 3 });
    try {
      const r = await call(p.url, 'POST', `/v2/${parked}/run`, { body: { input: {} } });
      expect(r.status).toBe(429);
      expect(r.headers['retry-after']).toBe('3');
      expect(r.body).toEqual({ error: expect.any(String) });
      expect(p.engine.created(parked)).toBe(0);
      // The worker protocol (pods talk to the platform internally) and REST are not faulted.
      expect((await call(p.url, 'GET', `/v2/${parked}/ping/no-such-pod`)).status).not.toBe(429);
      expect((await call(p.url, 'GET', '/v1/endpoints')).status).toBe(200);
      // The repo's client sees RATE_LIMITED with the Retry-After.
      const client = new QueueClient({ baseUrl: `${p.url}/v2`, apiKey: 'test-key', retry: { maxAttempts: 1 } });
      const err: unknown = await client.health(parked).catch((e: unknown) => e);
      expect(isPlatformApiError(err, 'RATE_LIMITED') && err.retryAfterMs).toBe(3000);
      await client.close();
    } finally {
      await p.dispose();
    }
  });

  it('apis chooses where faults apply: REST only leaves the queue API alone', async () => {
    const { p, parked } = await faulty({ badGateway: 1, apis: ['rest'] });
    try {
      const rest = await call(p.url, 'GET', '/v1/endpoints');
      expect(rest.status).toBe(502);
      expect(rest.headers['content-type']).toBe('text/html');
      expect(String(rest.body)).toContain('502 Bad Gateway');
      expect((await call(p.url, 'GET', `/v2/${parked}/health`)).status).toBe(200);
    } finally {
      await p.dispose();
    }
  });

  it('the same seed and the same requests give the same faults; another seed others', async () => {
    const faults = { seed: 7, rateLimited: 0.3, badGateway: 0.3 };
    const runs: number[][] = [];
    for (const seed of [7, 7, 8]) {
      const { p, parked } = await faulty({ ...faults, seed });
      runs.push(await healthStatuses(p, parked, 30));
      await p.dispose();
    }
    expect(new Set(runs[0])).toEqual(new Set([200, 429, 502]));
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).not.toEqual(runs[0]);
  });

  it('reset-before: the client sees a reset and no job is created', async () => {
    const { p, parked } = await faulty({ resetBefore: 1 });
    const client = new QueueClient({ baseUrl: `${p.url}/v2`, apiKey: 'test-key', rateBudget: false });
    try {
      const err: unknown = await client.run(parked, { input: {} }).catch((e: unknown) => e);
      expect(isPlatformApiError(err, 'NETWORK')).toBe(true);
      expect(p.engine.created(parked)).toBe(0);
    } finally {
      await client.close();
      await p.dispose();
    }
  });

  it('reset-after=1: the job is created though the client saw only resets; the key keeps it to one', async () => {
    const { p, parked } = await faulty({ resetAfter: 1 });
    const client = new QueueClient({
      baseUrl: `${p.url}/v2`,
      apiKey: 'test-key',
      rateBudget: false,
      retry: { maxAttempts: 3, baseDelayMs: 1 },
    });
    try {
      const err: unknown = await client.run(parked, { input: {} }, { idempotencyKey: 'k1' }).catch((e: unknown) => e);
      expect(isPlatformApiError(err, 'NETWORK') && err.mayHaveReachedServer).toBe(true);
      // Three attempts reached the service and were processed: one job, by the key.
      expect(p.engine.created(parked)).toBe(1);
    } finally {
      await client.close();
      await p.dispose();
    }
  });

  it('reset-after at random: retries with the key return the job the lost answer created, never a second one', async () => {
    const { p, parked } = await faulty({ seed: 3, resetAfter: 0.5 });
    const client = new QueueClient({
      baseUrl: `${p.url}/v2`,
      apiKey: 'test-key',
      rateBudget: false,
      retry: { maxAttempts: 20, baseDelayMs: 1, maxDelayMs: 5 },
    });
    try {
      const acks = [];
      for (let i = 0; i < 12; i++) acks.push(await client.run(parked, { input: { i } }, { idempotencyKey: `k${i}` }));
      expect(new Set(acks.map((a) => a.id)).size).toBe(12);
      expect(p.engine.created(parked)).toBe(12);
      // Some answers were lost after the job was created: their retry was answered as a replay.
      expect(acks.some((a) => a.replayed)).toBe(true);
    } finally {
      await client.close();
      await p.dispose();
    }
  });

  it('delay: the answer comes late; a client that gave up meanwhile still created the job', async () => {
    const { p, parked } = await faulty({ delay: 1, delayMs: [1000, 1200] });
    const client = new QueueClient({
      baseUrl: `${p.url}/v2`,
      apiKey: 'test-key',
      rateBudget: false,
      requestTimeoutMs: 300,
      retry: { maxAttempts: 1 },
    });
    try {
      const err: unknown = await client.run(parked, { input: {} }).catch((e: unknown) => e);
      expect(isPlatformApiError(err, 'NETWORK')).toBe(true);
      expect(p.engine.created(parked)).toBe(1);
      // A patient client gets its answer.
      const patient = new QueueClient({ baseUrl: `${p.url}/v2`, apiKey: 'test-key', rateBudget: false });
      expect((await patient.run(parked, { input: {} })).status).toBe('IN_QUEUE');
      await patient.close();
    } finally {
      await client.close();
      await p.dispose();
    }
  });
});

describe('fault mode: webhooks', () => {
  let hooks: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => (hooks = await receiver()));
  afterAll(() => hooks.close());

  /** Runs `n` echo jobs with the receiver's webhook to COMPLETED; returns their ids. */
  async function completeJobs(p: P, n: number): Promise<string[]> {
    const echo = p.examples.echo!.id;
    const client = new QueueClient({ baseUrl: `${p.url}/v2`, apiKey: 'test-key', rateBudget: false });
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await client.run(echo, { input: { i }, webhook: `${hooks.url}/h` })).id);
    await client.close();
    for (const id of ids) await waitForStatus(p.url, echo, id, ['COMPLETED'], 60_000);
    return ids;
  }

  it('lost webhooks never reach the receiver while their jobs complete; duplicated ones reach it twice', async () => {
    const p = await testPlatform({ faults: { seed: 5, webhookLost: 0.5, webhookDuplicate: 0.5 } });
    try {
      const ids = await completeJobs(p, 10);
      const settled = () => ids.filter((id) => hooks.calls.get(id) === 2).length;
      await eventually(() => settled() > 0);
      await new Promise((r) => setTimeout(r, 1000));
      const counts = ids.map((id) => hooks.calls.get(id) ?? 0);
      expect(counts.every((c) => c === 0 || c === 2)).toBe(true);
      expect(counts).toContain(0);
      expect(counts).toContain(2);
    } finally {
      await p.dispose();
    }
  });

  it('reset after delivery: the receiver got it, the platform saw a failure and sent it again', async () => {
    const p = await testPlatform({ faults: { webhookReset: 1 }, webhook: { retryDelayMs: 50 } });
    try {
      const ids = await completeJobs(p, 3);
      await eventually(() => ids.every((id) => hooks.calls.get(id) === 2));
      await new Promise((r) => setTimeout(r, 300));
      expect(ids.map((id) => hooks.calls.get(id))).toEqual([2, 2, 2]);
    } finally {
      await p.dispose();
    }
  });
});

describe('fault mode: the --faults flag', () => {
  it.each([
    ['platform', '429=2', /bad fault spec part "429=2": the rate must be a number from 0 to 1/],
    ['platform', 'seed=7,bogus=0.1', /bad fault spec part "bogus=0\.1": unknown fault "bogus"/],
    ['dev', 'delay=0.1:4000-1000', /bad fault spec part "delay=0\.1:4000-1000": the delay range/],
    ['dev', '429=0.6,502=0.6', /add up to more than 1/],
  ])('sluice %s --faults %s exits 2 naming the bad part', async (cmd, spec, message) => {
    const r = await sluice([cmd, '--port', '0', '--faults', spec, '--data-dir', '/nonexistent/sluice-faults']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});
