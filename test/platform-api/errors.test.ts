import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueClient, isPlatformApiError, type PlatformApiError, type PlatformApiErrorCode } from '../../platform-api';
import { json, refusedBaseUrl, startServer, type FakeServer } from './fake-server';

/** Runs `fn` and returns what it threw. */
async function caught(fn: () => Promise<unknown>): Promise<PlatformApiError> {
  try {
    await fn();
  } catch (e) {
    if (isPlatformApiError(e)) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}

describe('error mapping', () => {
  let server: FakeServer;
  let client: QueueClient;
  // The job id tells the server which answer to give.
  const answers: Record<string, [number, unknown, Record<string, string>?]> = {
    bad: [400, { error: 'policy.ttl must be at least 10000 ms' }],
    big400: [400, { error: 'payload too large: 10485760 bytes limit exceeded' }],
    big413: [413, { error: 'request entity too large' }],
    auth: [401, { error: 'unauthorized' }],
    forbidden: [403, 'no'],
    missing: [404, { error: 'job not found' }],
    limited: [429, { error: 'slow down' }, { 'retry-after': '7' }],
    crash: [500, { error: 'worker crashed' }],
    moved: [302, '', { location: '/elsewhere' }],
    conflict: [409, { error: 'conflict' }],
    shape: [200, { id: 'j', status: 'SLEEPING' }],
  };

  beforeAll(async () => {
    server = await startServer((req, res) => {
      const key = req.url.split('/').pop()?.split('?')[0] ?? '';
      if (key === 'text') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('hello');
      }
      const [status, body, headers] = answers[key] ?? [500, { error: 'no script' }];
      json(res, status, body, headers);
    });
    client = new QueueClient({ baseUrl: server.baseUrl, apiKey: 'k', retry: { maxAttempts: 1 } });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  const cases: Array<[string, PlatformApiErrorCode, number]> = [
    ['bad', 'BAD_REQUEST', 400],
    ['big400', 'PAYLOAD_TOO_LARGE', 400],
    ['big413', 'PAYLOAD_TOO_LARGE', 413],
    ['auth', 'UNAUTHORIZED', 401],
    ['forbidden', 'UNAUTHORIZED', 403],
    ['missing', 'NOT_FOUND', 404],
    ['limited', 'RATE_LIMITED', 429],
    ['crash', 'SERVER_ERROR', 500],
    ['moved', 'UNEXPECTED_STATUS', 302],
    ['conflict', 'UNEXPECTED_STATUS', 409],
    ['shape', 'INVALID_RESPONSE', 200],
    ['text', 'INVALID_RESPONSE', 200],
  ];
  it.each(cases)('%s -> %s', async (jobId, code, status) => {
    const e = await caught(() => client.status('ep-1', jobId));
    expect(e.code).toBe(code);
    expect(e.status).toBe(status);
    expect(e).toMatchObject({ operation: 'status', endpointId: 'ep-1', jobId });
  });

  it('keeps the error body, the message and Retry-After', async () => {
    const e = await caught(() => client.status('ep-1', 'limited'));
    expect(e.body).toEqual({ error: 'slow down' });
    expect(e.message).toContain('slow down');
    expect(e.retryAfterMs).toBe(7000);
    expect(e.retryable).toBe(true);
  });

  it('toJSON is plain JSON that survives a round trip', async () => {
    const e = await caught(() => client.status('ep-1', 'missing'));
    const plain = JSON.parse(JSON.stringify(e)) as unknown;
    expect(plain).toEqual(e.toJSON());
    expect(plain).toEqual({
      name: 'NotFoundError',
      code: 'NOT_FOUND',
      message: expect.any(String) as string,
      retryable: false,
      status: 404,
      operation: 'status',
      endpointId: 'ep-1',
      jobId: 'missing',
      body: { error: 'job not found' },
    });
  });

  it('maps connection refused to NETWORK known not to have reached the server', async () => {
    const c = new QueueClient({ baseUrl: await refusedBaseUrl(), apiKey: 'k', retry: { maxAttempts: 1 } });
    const e = await caught(() => c.health('ep-1'));
    expect(e.code).toBe('NETWORK');
    expect(e.mayHaveReachedServer).toBe(false);
    expect(e.toJSON().cause).toBeTypeOf('string');
    await c.close();
  });

  it('maps a timeout to NETWORK that may have reached the server', async () => {
    const silent = await startServer(() => undefined);
    const c = new QueueClient({
      baseUrl: silent.baseUrl,
      apiKey: 'k',
      retry: { maxAttempts: 1 },
      requestTimeoutMs: 150,
    });
    const e = await caught(() => c.status('ep-1', 'j'));
    expect(e.code).toBe('NETWORK');
    expect(e.mayHaveReachedServer).toBe(true);
    expect(e.message).toContain('timed out');
    await c.close();
    await silent.close();
  });
});
