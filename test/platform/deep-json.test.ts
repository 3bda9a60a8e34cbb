import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../contracts';
import { addEndpoint, call, testPlatform, waitForStatus } from '../helpers/platform';
import { tsxCommand } from '../helpers/tsx-command';

type P = Awaited<ReturnType<typeof testPlatform>>;

/** `depth` arrays around a string, as JSON text (built as text: the value itself may not be writable). */
const nested = (depth: number): string => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;
const deepWorker = (): string[] => {
  return tsxCommand(join(__dirname, 'fixtures', 'deep-worker.ts'));
};

describe(`JSON nested deeper than ${LIMITS.jsonDepth} levels: a 400 naming the limit, never a 500`, () => {
  let p: P;
  let ep: string;

  beforeAll(async () => {
    p = await testPlatform();
    ep = p.examples.echo!.id;
  });
  afterAll(() => p.dispose());

  it('/run and /runsync refuse an input nested 5000 levels deep; at the limit it round-trips', async () => {
    for (const op of ['run', 'runsync']) {
      const r = await call(p.url, 'POST', `/v2/${ep}/${op}`, { raw: `{"input": {"a": ${nested(5000)}}}` });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error).toMatch(/more than 256 levels deep/);
    }
    // The body at the limit: {"input": {"a": [[...]]}} is 2 + 254 deep.
    const ok = await call(p.url, 'POST', `/v2/${ep}/runsync`, {
      raw: `{"input": {"a": ${nested(LIMITS.jsonDepth - 2)}}}`,
    });
    expect(ok.body.status).toBe('COMPLETED');
    expect(JSON.stringify(ok.body.output.a)).toBe(nested(LIMITS.jsonDepth - 2));
    expect(
      (await call(p.url, 'POST', `/v2/${ep}/run`, { raw: `{"input": {"a": ${nested(LIMITS.jsonDepth - 1)}}}` })).status,
    ).toBe(400);
  });

  it('REST and GraphQL bodies, GraphQL variables and GraphQL documents are limited too', async () => {
    const rest = await call(p.url, 'POST', '/v1/templates', { raw: `{"name": "t", "env": ${nested(5000)}}` });
    expect(rest.status).toBe(400);
    expect(rest.body.error).toMatch(/256 levels/);
    const vars = await call(p.url, 'POST', '/graphql', {
      raw: `{"query": "{ myself { id } }", "variables": {"x": ${nested(5000)}}}`,
    });
    expect(vars.status).toBe(400);
    expect(vars.body.errors[0].message).toMatch(/256 levels/);
    const doc = await call(p.url, 'POST', '/graphql', {
      body: { query: `{${'myself {'.repeat(5000)} id ${'}'.repeat(5000)}}` },
    });
    // A document is bounded by its tokens before the (recursive) parser nests: the limit is named.
    expect(doc.status).toBe(400);
    expect(doc.body.errors[0].message).toMatch(/more than 1000 tokens/);
    const list = await call(p.url, 'POST', '/graphql', { body: { query: `{ myself(x: ${nested(5000)}) { id } }` } });
    expect(list.status).toBe(400);
    expect(list.body.errors[0].message).toMatch(/more than 1000 tokens/);
    // Braces inside strings and comments are no tokens.
    const fine = await call(p.url, 'POST', '/graphql', {
      body: { query: `# ${'{'.repeat(3000)}\n{ myself { id name: id } }` },
    });
    expect(fine.status, JSON.stringify(fine.body)).toBe(200);
  });

  it("a worker's output nested too deeply fails its job with an error naming the limit (result and stream)", async () => {
    const deep = addEndpoint(p, { name: 'deep', command: deepWorker(), workersMax: 1 }).id;
    const done = await call(p.url, 'POST', `/v2/${deep}/runsync`, { body: { input: { depth: 300 } } });
    expect(done.body.status).toBe('FAILED');
    expect(done.body.error).toMatch(/job-done body was refused.*more than 256 levels deep/);
    const streamed = await call(p.url, 'POST', `/v2/${deep}/run`, { body: { input: { depth: 300, stream: true } } });
    const failed = await waitForStatus(p.url, deep, streamed.body.id, ['FAILED']);
    expect(failed.error).toMatch(/job-stream body was refused.*256 levels/);
    // The worker was told to stop and is free again: a good job still runs.
    expect((await call(p.url, 'POST', `/v2/${deep}/runsync`, { body: { input: { depth: 3 } } })).body).toMatchObject({
      status: 'COMPLETED',
      output: [[['bottom']]],
    });
  });
});
