import { afterEach, describe, expect, it } from 'vitest';
import {
  NetworkError,
  QueueClient,
  RateLimitedError,
  ServerError,
  backoffDelay,
  isPlatformApiError,
  isSafeToRetry,
  withRetry,
  type QueueClientOptions,
} from '../../platform-api';
import { json, refusedBaseUrl, startServer, type FakeServer } from './fake-server';

const FAST = { baseDelayMs: 5, maxDelayMs: 20 };
const ack = { id: 'job-1', status: 'IN_QUEUE' };
const record = { id: 'job-1', status: 'COMPLETED', output: 1 };
const submission = { input: { prompt: 'hi' } };

describe('retry rule', () => {
  const reached = new NetworkError('reset', { mayHaveReachedServer: true });
  const notSent = new NetworkError('refused', { mayHaveReachedServer: false });
  it('idempotent operations retry on every retryable failure', () => {
    for (const e of [reached, notSent, new ServerError('x', { status: 503 }), new RateLimitedError('x')]) {
      expect(isSafeToRetry(e, true)).toBe(true);
    }
  });
  it('submissions retry only when no job can have been created', () => {
    expect(isSafeToRetry(new RateLimitedError('x', { status: 429 }), false)).toBe(true);
    expect(isSafeToRetry(notSent, false)).toBe(true);
    expect(isSafeToRetry(reached, false)).toBe(false);
    expect(isSafeToRetry(new ServerError('x', { status: 500 }), false)).toBe(false);
  });
  it('never retries foreign errors', () => {
    expect(isSafeToRetry(new Error('boom'), true)).toBe(false);
  });
  it('backoff is full jitter under an exponential cap', () => {
    const o = { baseDelayMs: 200, maxDelayMs: 10_000 };
    expect(backoffDelay(1, o, () => 0)).toBe(0);
    expect(backoffDelay(1, o, () => 0.99999)).toBe(200);
    expect(backoffDelay(3, o, () => 0.99999)).toBe(800);
    expect(backoffDelay(20, o, () => 0.99999)).toBe(10_000);
  });
  it('stops when the signal aborts during the wait', async () => {
    const ac = new AbortController();
    let calls = 0;
    const p = withRetry(
      () => {
        calls++;
        return Promise.reject(new ServerError('x', { status: 503 }));
      },
      { idempotent: true, retry: { baseDelayMs: 1000, maxDelayMs: 1000 }, random: () => 1, signal: ac.signal },
    );
    setTimeout(() => ac.abort(new Error('stop')), 20);
    await expect(p).rejects.toThrow('stop');
    expect(calls).toBe(1);
  });
});

describe('retries against a real server', () => {
  let server: FakeServer | undefined;
  const clients: QueueClient[] = [];
  const client = (baseUrl: string, extra: Partial<QueueClientOptions> = {}): QueueClient => {
    const c = new QueueClient({ baseUrl, apiKey: 'k', retry: { maxAttempts: 4, ...FAST }, ...extra });
    clients.push(c);
    return c;
  };
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await server?.close();
    server = undefined;
  });

  it('status retries 503s: the server sees every attempt', async () => {
    server = await startServer((_req, res, n) => (n < 3 ? json(res, 503, { error: 'busy' }) : json(res, 200, record)));
    await expect(client(server.baseUrl).status('ep', 'job-1')).resolves.toMatchObject(record);
    expect(server.seen).toHaveLength(3);
  });

  it('status gives up after maxAttempts', async () => {
    server = await startServer((_req, res) => json(res, 503, { error: 'busy' }));
    const retries: number[] = [];
    const c = client(server.baseUrl, { onRetry: (e) => retries.push(e.attempt) });
    await expect(c.status('ep', 'job-1')).rejects.toMatchObject({ code: 'SERVER_ERROR', status: 503 });
    expect(server.seen).toHaveLength(4);
    expect(retries).toEqual([1, 2, 3]);
  });

  it('status retries a connection reset', async () => {
    server = await startServer((_req, res, n) => {
      if (n === 1) res.socket?.destroy();
      else json(res, 200, record);
    });
    await expect(client(server.baseUrl).status('ep', 'job-1')).resolves.toMatchObject(record);
    expect(server.seen).toHaveLength(2);
  });

  it('run is NOT retried after a socket reset once the body was sent', async () => {
    server = await startServer((_req, res) => res.socket?.destroy());
    const e: unknown = await client(server.baseUrl)
      .run('ep', submission)
      .catch((x: unknown) => x);
    expect(isPlatformApiError(e, 'NETWORK') && e.mayHaveReachedServer).toBe(true);
    expect(server.seen).toHaveLength(1);
    expect(JSON.parse(server.seen[0]?.body ?? '')).toEqual(submission);
  });

  it('run is NOT retried after a 5xx or a timeout', async () => {
    server = await startServer((_req, res, n) => (n === 1 ? json(res, 503, { error: 'busy' }) : undefined));
    const c = client(server.baseUrl, { requestTimeoutMs: 150 });
    await expect(c.run('ep', submission)).rejects.toMatchObject({ code: 'SERVER_ERROR' });
    await expect(c.run('ep', submission)).rejects.toMatchObject({ code: 'NETWORK', mayHaveReachedServer: true });
    expect(server.seen).toHaveLength(2);
  });

  it('runsync is NOT retried after a 500', async () => {
    server = await startServer((_req, res) => json(res, 500, { error: 'boom' }));
    await expect(client(server.baseUrl).runSync('ep', submission, { waitMs: 1000 })).rejects.toMatchObject({
      code: 'SERVER_ERROR',
    });
    expect(server.seen).toHaveLength(1);
  });

  it('run retries a 429 and waits at least Retry-After', async () => {
    server = await startServer((_req, res, n) =>
      n === 1 ? json(res, 429, { error: 'slow down' }, { 'retry-after': '1' }) : json(res, 200, ack),
    );
    const started = Date.now();
    await expect(client(server.baseUrl).run('ep', submission)).resolves.toEqual(ack);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(server.seen).toHaveLength(2);
  });

  it('does not sit out a Retry-After above maxRetryAfterMs', async () => {
    server = await startServer((_req, res) => json(res, 429, { error: 'later' }, { 'retry-after': '120' }));
    await expect(client(server.baseUrl).status('ep', 'job-1')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterMs: 120_000,
    });
    expect(server.seen).toHaveLength(1);
  });

  it('run retries connection refused (nothing was sent)', async () => {
    const retries: number[] = [];
    const c = client(await refusedBaseUrl(), { onRetry: (e) => retries.push(e.attempt) });
    await expect(c.run('ep', submission)).rejects.toMatchObject({ code: 'NETWORK', mayHaveReachedServer: false });
    expect(retries).toEqual([1, 2, 3]);
  });

  it('does not retry 4xx answers', async () => {
    server = await startServer((_req, res) => json(res, 404, { error: 'no such job' }));
    await expect(client(server.baseUrl).cancel('ep', 'job-1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(server.seen).toHaveLength(1);
  });
});
