/** Limits on untrusted input: GraphQL aliases, depth and tokens; no body read before authentication; slow clients dropped. */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../../platform/transport/graphql/limits';
import { call, eventually, testPlatform } from '../helpers/platform';

type P = Awaited<ReturnType<typeof testPlatform>>;

/** A raw connection to the platform: what it answered, and whether the server closed it. */
function rawClient(url: string): {
  socket: Socket;
  received: () => string;
  closed: () => boolean;
  ended: () => boolean;
} {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let text = '';
  let closed = false;
  let ended = false;
  socket.on('end', () => (ended = true));
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  return { socket, received: () => text, closed: () => closed, ended: () => ended || closed };
}

describe('limits on untrusted input', () => {
  let p: P;
  beforeAll(async () => {
    // Short request and header timeouts, so a slow client is dropped within the test.
    p = await testPlatform({ seedExamples: false, http: { requestTimeoutMs: 1500, headersTimeoutMs: 1500 } });
  });
  afterAll(() => p.dispose());

  const gql = (query: string) => call(p.url, 'POST', '/graphql', { body: { query } });

  it('a GraphQL query with 1,000 aliases is refused with a 400 naming the limit', async () => {
    const aliases = (n: number): string => Array.from({ length: n }, (_, i) => `a${i}: id`).join(' ');
    const r = await gql(`{ myself { ${aliases(1000)} } }`);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.headers['content-type']).toMatch(/json/);
    expect(r.body.data).toBeUndefined();
    // 1,000 aliases are 3,000 tokens: the token limit refuses them before the parser builds anything.
    expect(r.body.errors[0].message).toContain(`more than ${GRAPHQL_LIMITS.maxTokens} tokens`);
    // Within the token limit, the alias limit is the one named.
    const some = await gql(`{ myself { ${aliases(GRAPHQL_LIMITS.maxAliases + 5)} } }`);
    expect(some.status, JSON.stringify(some.body)).toBe(400);
    expect(some.body.errors[0].message).toMatch(new RegExp(`Aliases limit of ${GRAPHQL_LIMITS.maxAliases} exceeded`));
    expect(some.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    // A few aliases are fine.
    expect((await gql('{ myself { a: id b: id } }')).status).toBe(200);
  });

  it('a deep query is refused by the depth limit; one nested up to the token limit is a 400, never a 500', async () => {
    const depth = GRAPHQL_LIMITS.maxDepth + 5;
    const deep = await gql(
      `{ myself { ${'endpoints { template { '.repeat(1)}${'env { '.repeat(depth)} key ${'} '.repeat(depth)} } } } }`,
    );
    expect(deep.status, JSON.stringify(deep.body)).toBe(400);
    expect(deep.body.errors[0].message).toMatch(/depth/i);
    const lists = await gql(
      `{ myself(x: ${'['.repeat(GRAPHQL_LIMITS.maxTokens - 10)}${']'.repeat(GRAPHQL_LIMITS.maxTokens - 10)}) { id } }`,
    );
    expect(lists.status, JSON.stringify(lists.body)).toBe(400);
  });

  it('an unauthenticated oversized GraphQL body is refused without being read whole', async () => {
    const declared = 50 * 1024 * 1024;
    const c = rawClient(p.url);
    c.socket.write(
      `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
    );
    c.socket.write(Buffer.alloc(64 * 1024, 'x'));
    // The 401 comes, and the connection is closed, with almost all of the 50 MB never sent.
    await eventually(() => c.closed());
    expect(c.received()).toMatch(/^HTTP\/1\.1 401/);
    expect(c.received()).toMatch(/UNAUTHENTICATED/);
    expect(c.socket.bytesWritten).toBeLessThan(declared);
  });

  it('a chunked unauthenticated body is discarded up to the route limit at most, then the connection ended', async () => {
    const c = rawClient(p.url);
    c.socket.write('POST /graphql HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
    const chunk = Buffer.alloc(256 * 1024, 'x');
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    // 8 MB queued; the server reads at most the route's 1 MB of it, answers and ends the connection.
    for (let i = 0; i < 32; i++) c.socket.write(frame);
    await eventually(() => c.ended());
    expect(c.received()).toMatch(/^HTTP\/1\.1 401/);
    c.socket.destroy();
  });

  it('a client that trickles its body is dropped (request timeout)', async () => {
    const c = rawClient(p.url);
    c.socket.write(
      'POST /v1/templates HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer test-key\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    const trickle = setInterval(() => !c.closed() && c.socket.write(' '), 200);
    try {
      await eventually(() => c.closed());
    } finally {
      clearInterval(trickle);
    }
    expect(c.received()).not.toMatch(/^HTTP\/1\.1 2/);
  });

  it('a client that never finishes its headers is dropped (headers timeout)', async () => {
    const c = rawClient(p.url);
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => !c.closed() && c.socket.write('X-A: b\r\n'), 200);
    try {
      await eventually(() => c.closed());
    } finally {
      clearInterval(trickle);
    }
    expect(c.received()).not.toMatch(/^HTTP\/1\.1 200/);
  });
});
