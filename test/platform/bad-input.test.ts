import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { MB } from '../../contracts';
import { call, testPlatform } from '../helpers/platform';

type P = Awaited<ReturnType<typeof testPlatform>>;

describe('auth, isolation and bad input: always a 4xx with a JSON error, never a 500', () => {
  let p: P;
  let ep: string;
  let otherKey: string;
  let otherEp: string;
  let job: string;

  beforeAll(async () => {
    p = await testPlatform();
    ep = p.examples.echo!.id;
    const other = p.users.add('mallory');
    otherKey = other.apiKey;
    const tpl = p.registry.templateByName('sluice-example-echo')!;
    otherEp = p.registry.saveEndpoint({
      ...p.registry.endpoint(ep)!,
      id: undefined as never,
      userId: other.id,
      templateId: tpl.id,
      name: 'theirs',
    }).id;
    job = (await call(p.url, 'POST', `/v2/${ep}/runsync`, { body: { input: { a: 1 } } })).body.id;
  });
  afterAll(() => p.dispose());

  it('accepts the key as "Bearer <key>" and bare', async () => {
    expect(
      (await call(p.url, 'GET', `/v2/${ep}/health`, { key: null, headers: { authorization: 'Bearer test-key' } }))
        .status,
    ).toBe(200);
    expect(
      (await call(p.url, 'GET', `/v2/${ep}/health`, { key: null, headers: { authorization: 'test-key' } })).status,
    ).toBe(200);
  });

  const authCases: [string, Record<string, string>][] = [
    ['no key', {}],
    ['empty key', { authorization: '' }],
    ['wrong key', { authorization: 'Bearer nope' }],
    ['bearer only', { authorization: 'Bearer ' }],
  ];
  for (const [name, headers] of authCases) {
    it(`401 for ${name} on every queue route`, async () => {
      for (const [method, path] of [
        ['POST', `/v2/${ep}/run`],
        ['POST', `/v2/${ep}/runsync`],
        ['GET', `/v2/${ep}/status/x`],
        ['GET', `/v2/${ep}/stream/x`],
        ['POST', `/v2/${ep}/cancel/x`],
        ['POST', `/v2/${ep}/retry/x`],
        ['POST', `/v2/${ep}/purge-queue`],
        ['GET', `/v2/${ep}/health`],
        ['GET', `/v2/${ep}/status-sync/x`],
      ] as const) {
        const r = await call(p.url, method, path, { key: null, headers, body: { input: {} } });
        expect(r.status, `${method} ${path}`).toBe(401);
        expect(typeof r.body.error).toBe('string');
      }
    });
  }

  it('another user cannot touch my endpoint or jobs (401), and I cannot touch theirs', async () => {
    const mine = [
      ['POST', `/v2/${ep}/run`],
      ['GET', `/v2/${ep}/status/${job}`],
      ['POST', `/v2/${ep}/cancel/${job}`],
      ['POST', `/v2/${ep}/purge-queue`],
      ['GET', `/v2/${ep}/health`],
      ['GET', `/v2/${ep}/stream/${job}`],
    ] as const;
    for (const [method, path] of mine) {
      const r = await call(p.url, method, path, { key: otherKey, body: { input: {} } });
      expect(r.status, `${method} ${path}`).toBe(401);
    }
    expect((await call(p.url, 'GET', `/v2/${otherEp}/health`)).status).toBe(401);
    expect((await call(p.url, 'GET', `/v2/${otherEp}/health`, { key: otherKey })).status).toBe(200);
    // A job id of my endpoint asked through theirs is unknown there.
    expect((await call(p.url, 'GET', `/v2/${otherEp}/status/${job}`, { key: otherKey })).status).toBe(404);
    expect((await call(p.url, 'GET', `/v2/${ep}/status/${job}`)).body.status).toBe('COMPLETED');
  });

  const bodies: [string, string, RegExp][] = [
    ['malformed JSON', '{"input": ', /not valid JSON/],
    ['empty body', '', /empty/],
    ['array body', '[1,2]', /invalid body/],
    ['input missing', '{}', /input/],
    ['input not an object', '{"input": "text"}', /input/],
    ['input null', '{"input": null}', /input/],
    ['policy not an object', '{"input": {}, "policy": 5}', /policy/],
    [
      'executionTimeout too small',
      '{"input": {}, "policy": {"executionTimeout": 4999}}',
      /policy\.executionTimeout.*at least 5000/,
    ],
    [
      'executionTimeout too large',
      '{"input": {}, "policy": {"executionTimeout": 604800001}}',
      /executionTimeout.*at most/,
    ],
    [
      'executionTimeout not an integer',
      '{"input": {}, "policy": {"executionTimeout": 6000.5}}',
      /executionTimeout.*integer/,
    ],
    ['ttl as a string', '{"input": {}, "policy": {"ttl": "60000"}}', /policy\.ttl/],
    ['ttl too small', '{"input": {}, "policy": {"ttl": 9999}}', /ttl.*at least 10000/],
    ['lowPriority not boolean', '{"input": {}, "policy": {"lowPriority": "yes"}}', /lowPriority/],
    ['unknown policy field', '{"input": {}, "policy": {"priority": 1}}', /policy/],
    ['webhook not a URL', '{"input": {}, "webhook": "not a url"}', /webhook/],
    ['webhook with a file scheme', '{"input": {}, "webhook": "file:///etc/passwd"}', /webhook/],
    ['s3Config incomplete', '{"input": {}, "s3Config": {"accessId": "a"}}', /s3Config/],
    ['prototype pollution attempt', '{"input": {}, "policy": {"__proto__": {"x": 1}}}', /policy/],
  ];
  for (const [name, raw, message] of bodies) {
    it(`400 naming the problem for ${name} (run and runsync)`, async () => {
      for (const op of ['run', 'runsync']) {
        const r = await call(p.url, 'POST', `/v2/${ep}/${op}`, {
          raw,
          headers: { 'content-type': 'application/json' },
        });
        expect(r.status, `${op}: ${JSON.stringify(r.body)}`).toBe(400);
        expect(r.body.error).toMatch(message);
      }
    });
  }

  it('404 for unknown endpoints and jobs, including path tricks', async () => {
    const paths = [
      `/v2/nosuchendpoint/run`,
      `/v2/${ep}/status/nosuchjob`,
      `/v2/${ep}/stream/nosuchjob`,
      `/v2/${ep}/cancel/nosuchjob`,
      `/v2/${ep}/retry/nosuchjob`,
      `/v2/..%2F..%2Fetc/health`,
      `/v2/${ep}/status/..%2F..%2Fpasswd`,
      `/v2/%00/health`,
      `/v2/${ep}/status/%E0%A4%A`,
      `/v2/${'a'.repeat(5000)}/health`,
      `/v3/${ep}/run`,
      `/v2/${ep}/nosuchop`,
    ];
    for (const path of paths) {
      const method = /run$|cancel|retry/.test(path) ? 'POST' : 'GET';
      const r = await call(p.url, method, path, { body: { input: {} } });
      expect(r.status, path).toBe(404);
      expect(typeof r.body.error).toBe('string');
    }
  });

  it('405 for a wrong method, with a JSON error', async () => {
    const r = await call(p.url, 'DELETE', `/v2/${ep}/run`);
    expect(r.status).toBe(405);
    expect(r.body.error).toMatch(/not allowed/);
    expect((await call(p.url, 'GET', `/v2/${ep}/run`)).status).toBe(405);
  });

  it('bodies over the limits get 400 naming the limit (10 MB /run, 20 MB /runsync); the platform keeps serving', async () => {
    const big = (bytes: number) => JSON.stringify({ input: { blob: 'x'.repeat(bytes) } });
    const r1 = await call(p.url, 'POST', `/v2/${ep}/run`, { raw: big(10 * MB) });
    expect(r1.status).toBe(400);
    expect(r1.body.error).toMatch(/10 MB limit of \/run/);
    const r2 = await call(p.url, 'POST', `/v2/${ep}/runsync`, { raw: big(20 * MB) });
    expect(r2.status).toBe(400);
    expect(r2.body.error).toMatch(/20 MB limit of \/runsync/);
    // Between the limits, /runsync accepts what /run refuses.
    const r3 = await call(p.url, 'POST', `/v2/${ep}/runsync`, { raw: big(12 * MB) });
    expect(r3.status).toBe(200);
    expect(r3.body.status).toBe('COMPLETED');
    expect(r3.body.output.blob).toHaveLength(12 * MB);
    // A chunked body (no content-length) is cut off at the limit too, and the client reads the 400.
    const res = await request(`${p.url}/v2/${ep}/run`, {
      method: 'POST',
      headers: { authorization: 'test-key' },
      body: Readable.from(
        (function* () {
          for (let i = 0; i < 11; i++) yield Buffer.alloc(MB, 'a');
        })(),
      ),
    });
    expect(res.statusCode).toBe(400);
    expect(await res.body.text()).toMatch(/10 MB limit of \/run/);
    expect((await call(p.url, 'GET', `/v2/${ep}/health`)).status).toBe(200);
  });

  it('bad query values are 400: ttl and wait', async () => {
    expect((await call(p.url, 'GET', `/v2/${ep}/status/${job}?ttl=abc`)).status).toBe(400);
    expect((await call(p.url, 'GET', `/v2/${ep}/status/${job}?ttl=604800001`)).status).toBe(400);
    expect((await call(p.url, 'GET', `/v2/${ep}/status-sync/${job}?wait=0`)).status).toBe(400);
  });

  it('the worker routes reject the user key, junk bodies and unknown jobs without crashing', async () => {
    const pod = p.pool.podsOf(ep).find((x) => x.phase === 'ready')!;
    const w = { key: null, headers: { authorization: pod.token } };
    expect(
      (
        await call(p.url, 'POST', `/v2/${ep}/job-done/${pod.id}/nosuchjob?isStream=false`, {
          ...w,
          raw: '{"output":1}',
        })
      ).status,
    ).toBe(404);
    expect(
      (await call(p.url, 'POST', `/v2/${ep}/job-done/${pod.id}/${job}?isStream=false`, { ...w, raw: '{nope' })).status,
    ).toBe(400);
    expect((await call(p.url, 'POST', `/v2/${ep}/job-stream/${pod.id}/${job}`, { ...w, raw: '[]' })).status).toBe(400);
    // A result for a job that is not running on this worker changes nothing.
    const late = await call(p.url, 'POST', `/v2/${ep}/job-done/${pod.id}/${job}?isStream=false`, {
      ...w,
      raw: '{"output":"hijack"}',
    });
    expect(late.status).toBe(200);
    expect((await call(p.url, 'GET', `/v2/${ep}/status/${job}`)).body.output).toEqual({ a: 1 });
  });

  it('still serves normally after all of the above', async () => {
    const r = await call(p.url, 'POST', `/v2/${ep}/runsync`, { body: { input: { still: 'alive' } } });
    expect(r.body).toMatchObject({ status: 'COMPLETED', output: { still: 'alive' } });
  });
});
