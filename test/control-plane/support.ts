/** Shared bits of the control-plane tests: GraphQL and REST calls, and the tagged test worker. */
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type PlatformOptions } from '../../platform';
import { GraphqlClient, RestClient } from '../../platform-api';
import { call, eventually, testPlatform } from '../helpers/platform';
import { tsxCommand } from '../helpers/tsx-command';

type TestPlatform = Awaited<ReturnType<typeof testPlatform>>;

/** The command of the tagged test worker (fixtures/tagged-worker.ts) answering with `tag`. */
export function taggedCommand(tag: string): string[] {
  return tsxCommand(join(__dirname, 'fixtures', 'tagged-worker.ts'), tag);
}

/** A raw GraphQL call with the key in `?api_key=` (the spec's way); `key: null` sends none. */
export function gql(
  base: string,
  query: string,
  opts: { key?: string | null; variables?: Record<string, unknown>; bearer?: string } = {},
) {
  const key = opts.key === undefined ? 'test-key' : opts.key;
  const path = key === null ? '/graphql' : `/graphql?api_key=${encodeURIComponent(key)}`;
  const headers: Record<string, string> = opts.bearer ? { authorization: `Bearer ${opts.bearer}` } : {};
  return call(base, 'POST', path, {
    key: null,
    headers,
    body: opts.variables ? { query, variables: opts.variables } : { query },
  });
}

/** Creates a serverless template through REST and returns its id. */
export async function restTemplate(
  base: string,
  name: string,
  command: string[],
  extra: Record<string, unknown> = {},
  key = 'test-key',
): Promise<string> {
  const r = await call(base, 'POST', '/v1/templates', {
    key,
    body: { name, imageName: 'local/test:1', isServerless: true, dockerStartCmd: command, ...extra },
  });
  if (r.status !== 200) throw new Error(`template create failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.id as string;
}

/** Creates an endpoint through GraphQL (`fields` is the input literal's body) and returns it. */
export async function gqlEndpoint(base: string, fields: string, key = 'test-key'): Promise<any> {
  const r = await gql(
    base,
    `mutation { saveEndpoint(input: { ${fields} }) { id name version workersMin workersMax templateId } }`,
    { key },
  );
  if (r.status !== 200 || r.body.errors) throw new Error(`saveEndpoint failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data.saveEndpoint;
}

/** The endpoint's `/health` body. */
export async function health(base: string, endpointId: string, key = 'test-key'): Promise<any> {
  return (await call(base, 'GET', `/v2/${endpointId}/health`, { key })).body;
}

/** Waits until `/health` satisfies `pred`; returns that body. */
export function healthUntil(base: string, endpointId: string, pred: (h: any) => boolean, ms = 20_000): Promise<any> {
  return eventually(async () => {
    const h = await health(base, endpointId);
    return pred(h) ? h : undefined;
  }, ms);
}

/** A platform on port 0 with its typed GraphQL and REST clients (no retries), closed in afterAll. */
export function clientsOnPlatform(options: PlatformOptions = {}): {
  readonly p: TestPlatform;
  readonly gql: GraphqlClient;
  readonly rest: RestClient;
} {
  const ctx = {} as { p: TestPlatform; gql: GraphqlClient; rest: RestClient };
  beforeAll(async () => {
    ctx.p = await testPlatform(options);
    ctx.gql = new GraphqlClient({ url: `${ctx.p.url}/graphql`, apiKey: 'test-key', retry: { maxAttempts: 1 } });
    ctx.rest = new RestClient({ baseUrl: `${ctx.p.url}/v1`, apiKey: 'test-key', retry: { maxAttempts: 1 } });
  });
  afterAll(async () => {
    await ctx.gql?.close();
    await ctx.rest?.close();
    await ctx.p?.dispose();
  });
  return ctx;
}

/** The rejection of `promise` (fails the test when it resolves). */
export async function failure(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to fail');
}
