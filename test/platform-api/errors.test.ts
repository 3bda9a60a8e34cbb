import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GraphqlClient,
  QueueClient,
  isPlatformApiError,
  type PlatformApiError,
  type PlatformApiErrorCode,
} from '../../platform-api';
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

// The GraphQL client sends over undici's pool, or over Node's own http (`nodeHttp`: a CLI command's few calls, so
// undici never loads): both transports give the same typed errors and carry the same request.
describe.each([
  ['undici', false],
  ["Node's http", true],
])('the GraphQL client over %s', (_name, nodeHttp) => {
  const client = (url: string, requestTimeoutMs?: number) =>
    new GraphqlClient({ url, apiKey: 'k', nodeHttp, retry: { maxAttempts: 1 }, requestTimeoutMs });

  it('sends the query as JSON with the key, and maps 401 and 429 (with Retry-After) to typed errors', async () => {
    let n = 0;
    const server = await startServer((req, res) =>
      ++n === 1 ? json(res, 401, { error: 'unauthorized' }) : json(res, 429, { error: 'slow' }, { 'retry-after': '3' }),
    );
    const c = client(`${server.baseUrl}/graphql`);
    try {
      const auth = await caught(() => c.listEndpoints());
      expect(auth).toMatchObject({ code: 'UNAUTHORIZED', status: 401, operation: 'listEndpoints' });
      const limited = await caught(() => c.listEndpoints());
      expect(limited).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfterMs: 3000 });
      const sent = server.seen[0]!;
      expect(sent.method).toBe('POST');
      expect(sent.url).toBe('/v2/graphql');
      expect(sent.headers.authorization).toBe('Bearer k');
      expect(Number(sent.headers['content-length'])).toBe(Buffer.byteLength(sent.body));
      expect((JSON.parse(sent.body) as { query: string }).query).toContain('myself');
    } finally {
      await c.close();
      await server.close();
    }
  });

  it('maps connection refused to NETWORK that never reached the server, and a timeout to one that may have', async () => {
    const refused = client(`${await refusedBaseUrl()}/graphql`);
    const e = await caught(() => refused.listEndpoints());
    expect(e).toMatchObject({ code: 'NETWORK', mayHaveReachedServer: false });
    await refused.close();
    const silent = await startServer(() => undefined);
    const slow = client(`${silent.baseUrl}/graphql`, 150);
    const t = await caught(() => slow.listEndpoints());
    expect(t).toMatchObject({ code: 'NETWORK', mayHaveReachedServer: true });
    expect(t.message).toContain('timed out');
    await slow.close();
    await silent.close();
  });
});
