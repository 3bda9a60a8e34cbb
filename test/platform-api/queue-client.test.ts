import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../../contracts';
import { QueueClient, isPlatformApiError } from '../../platform-api';
import { json, startServer, type FakeServer, type Seen } from './fake-server';

const record = { id: 'job-1', status: 'COMPLETED', delayTime: 3, executionTime: 40, output: { text: 'ok' } };
const chunks = [{ output: 'a', metrics: { stream_index: 0 } }, { output: 'b' }];

/** Scripted answers per route (the path after the endpoint id). */
function answer(req: Seen): [number, unknown] {
  const route = req.url.split('?')[0]?.split('/')[3] ?? '';
  if (route === 'run') return [200, { id: 'job-1', status: 'IN_QUEUE' }];
  if (route === 'runsync' || route === 'status' || route === 'status-sync') return [200, record];
  if (route === 'stream')
    return req.url.includes('bare') ? [200, chunks] : [200, { id: 'job-1', status: 'IN_PROGRESS', stream: chunks }];
  if (route === 'cancel') return [200, { id: 'job-1', status: 'CANCELLED' }];
  if (route === 'retry') return [200, { id: 'job-1', status: 'IN_QUEUE' }];
  if (route === 'purge-queue') return [200, { removed: 2, status: 'completed' }];
  if (route === 'health')
    return [
      200,
      { jobs: { completed: 1, failed: 0, inProgress: 0, inQueue: 2, retried: 0 }, workers: { idle: 1, running: 0 } },
    ];
  return [404, { error: 'no route' }];
}

describe('QueueClient', () => {
  let server: FakeServer;
  let client: QueueClient;
  const last = (): Seen => server.seen[server.seen.length - 1] as Seen;

  beforeAll(async () => {
    server = await startServer((req, res) => json(res, ...answer(req)));
    // Trailing slash on purpose: it must not double up in paths.
    client = new QueueClient({ baseUrl: `${server.baseUrl}/`, apiKey: 'secret', retry: { maxAttempts: 1 } });
  });
  beforeEach(() => {
    server.seen.length = 0;
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('run POSTs the submission unchanged with bearer auth and JSON headers', async () => {
    const body = { input: { prompt: 'hi' }, webhook: 'https://example.com/hook', policy: { ttl: 60_000 } };
    await expect(client.run('ep-1', body)).resolves.toEqual({ id: 'job-1', status: 'IN_QUEUE' });
    const req = last();
    expect([req.method, req.url]).toEqual(['POST', '/v2/ep-1/run']);
    expect(req.headers.authorization).toBe('Bearer secret');
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual(body);
  });

  it("authStyle 'bare' sends the key alone", async () => {
    const bare = new QueueClient({ baseUrl: server.baseUrl, apiKey: 'secret', authStyle: 'bare' });
    await bare.health('ep-1');
    expect(last().headers.authorization).toBe('secret');
    await bare.close();
  });

  it('runSync sends wait and returns the record', async () => {
    await expect(client.runSync('ep-1', { input: {} }, { waitMs: 5000 })).resolves.toEqual(record);
    expect(last().url).toBe('/v2/ep-1/runsync?wait=5000');
    await client.runSync('ep-1', { input: {} });
    expect(last().url).toBe('/v2/ep-1/runsync');
  });

  it('refuses a wait outside 1000..300000 without a request', async () => {
    await expect(client.runSync('ep-1', { input: {} }, { waitMs: 999 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(client.statusSync('ep-1', 'job-1', { waitMs: 300_001 })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect(server.seen).toHaveLength(0);
  });

  it('status, statusSync, cancel, retry, purgeQueue and health hit their routes', async () => {
    await client.status('ep-1', 'job-1', { ttlMs: 60_000 });
    await client.statusSync('ep-1', 'job-1', { waitMs: 2000 });
    await expect(client.cancel('ep-1', 'job-1')).resolves.toMatchObject({ status: 'CANCELLED' });
    await expect(client.retry('ep-1', 'job-1')).resolves.toMatchObject({ status: 'IN_QUEUE' });
    await expect(client.purgeQueue('ep-1')).resolves.toEqual({ removed: 2, status: 'completed' });
    await expect(client.health('ep-1')).resolves.toMatchObject({ jobs: { inQueue: 2 }, workers: { idle: 1 } });
    expect(server.seen.map((s) => `${s.method} ${s.url} ${s.body}`)).toEqual([
      'GET /v2/ep-1/status/job-1?ttl=60000 ',
      'GET /v2/ep-1/status-sync/job-1?wait=2000 ',
      'POST /v2/ep-1/cancel/job-1 {}',
      'POST /v2/ep-1/retry/job-1 {}',
      'POST /v2/ep-1/purge-queue {}',
      'GET /v2/ep-1/health ',
    ]);
  });

  it('accepts a base URL without a path prefix', async () => {
    const c = new QueueClient({ baseUrl: server.baseUrl.replace(/\/v2$/, ''), apiKey: 'k' });
    await c.health('ep-1').catch(() => undefined);
    expect(last().url).toBe('/ep-1/health');
    await c.close();
  });

  it('encodes path segments', async () => {
    await client.status('ep/1', 'job 1?x=#');
    expect(last().url).toBe('/v2/ep%2F1/status/job%201%3Fx%3D%23');
  });

  it('refuses an empty id and an invalid ttl before sending', async () => {
    await expect(client.status('', 'job-1')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(client.cancel('ep-1', '')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(client.status('ep-1', 'job-1', { ttlMs: 5 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(server.seen).toHaveLength(0);
  });

  it('stream returns the envelope as is', async () => {
    await expect(client.stream('ep-1', 'job-1')).resolves.toEqual({
      id: 'job-1',
      status: 'IN_PROGRESS',
      stream: chunks,
    });
  });

  it('stream normalises a bare chunk array', async () => {
    const res = await client.stream('ep-1', 'bare');
    expect(res).toEqual({ stream: chunks });
    expect(res.status).toBeUndefined();
  });

  it('validates the submission and names the field', async () => {
    const noInput = await client.run('ep-1', {} as never).catch((e: unknown) => e);
    expect(isPlatformApiError(noInput, 'BAD_REQUEST') && noInput.message).toContain('input');
    const badTtl = await client.run('ep-1', { input: {}, policy: { ttl: 1 } }).catch((e: unknown) => e);
    expect(isPlatformApiError(badTtl, 'BAD_REQUEST') && badTtl.message).toContain('policy.ttl');
    expect(isPlatformApiError(badTtl) && badTtl.status).toBeUndefined();
    expect(server.seen).toHaveLength(0);
  });

  it('checks the payload size in UTF-8 bytes before sending', async () => {
    // 3.6 M characters of a 3-byte character: under 10 MB of characters, over 10 MB of bytes.
    const big = { input: { text: '€'.repeat(3_600_000) } };
    const e = await client.run('ep-1', big).catch((x: unknown) => x);
    expect(isPlatformApiError(e, 'PAYLOAD_TOO_LARGE') && e.body).toMatchObject({ limitBytes: LIMITS.runPayloadBytes });
    const huge = { input: { text: 'x'.repeat(LIMITS.runsyncPayloadBytes) } };
    await expect(client.runSync('ep-1', huge)).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(server.seen).toHaveLength(0);
  });

  it('rejects with the caller abort reason', async () => {
    const ac = new AbortController();
    ac.abort(new Error('cancelled by caller'));
    await expect(client.status('ep-1', 'job-1', { signal: ac.signal })).rejects.toThrow('cancelled by caller');
  });

  it('refuses calls after close', async () => {
    const c = new QueueClient({ baseUrl: server.baseUrl, apiKey: 'k' });
    await c.close();
    await expect(c.health('ep-1')).rejects.toThrow('closed');
  });
});
