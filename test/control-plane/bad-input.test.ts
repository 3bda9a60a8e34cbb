/**
 * Bad input and auth tables for every GraphQL and REST control-plane operation: each error
 * names the field, carries the documented code, and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, testPlatform } from '../helpers/platform';
import { gql, gqlEndpoint, restTemplate, taggedCommand } from './support';

type P = Awaited<ReturnType<typeof testPlatform>>;

let p: P;
let otherKey: string;
let tpl: string;
let podTpl: string;
let mine: string;
let theirs: string;
let theirTpl: string;
let podId: string;

beforeAll(async () => {
  p = await testPlatform();
  otherKey = p.users.add('other').apiKey;
  tpl = await restTemplate(p.url, 'bad-tpl', taggedCommand('b'));
  podTpl = (await call(p.url, 'POST', '/v1/templates', { body: { name: 'pod-only', imageName: 'img' } })).body.id;
  mine = (
    await gqlEndpoint(p.url, `name: "mine", gpuIds: "AMPERE_16", templateId: "${tpl}", workersMin: 1, workersMax: 2`)
  ).id;
  theirTpl = await restTemplate(p.url, 'their-tpl', taggedCommand('t'), {}, otherKey);
  theirs = (
    await gqlEndpoint(p.url, `name: "theirs", gpuIds: "AMPERE_16", templateId: "${theirTpl}", workersMax: 1`, otherKey)
  ).id;
  podId = (await call(p.url, 'POST', `/v2/${mine}/runsync`, { body: { input: {} } })).body.workerId;
});
afterAll(() => p.dispose());

/** One GraphQL operation per spec operation (and the template ones), all valid for the default user. */
const OPERATIONS = (): Record<string, string> => ({
  'saveEndpoint (create)': `mutation { saveEndpoint(input: { name: "n", gpuIds: "AMPERE_16", templateId: "${tpl}", workersMax: 0 }) { id } }`,
  'saveEndpoint (modify)': `mutation { saveEndpoint(input: { id: "${mine}", idleTimeout: 7 }) { id } }`,
  'myself (list)': '{ myself { endpoints { id pods { desiredStatus } } serverlessDiscount { discountFactor } } }',
  deleteEndpoint: 'mutation { deleteEndpoint(id: "nosuchendpoint") }',
  updateEndpointTemplate: `mutation { updateEndpointTemplate(input: { endpointId: "${mine}", templateId: "${tpl}" }) { id } }`,
  saveTemplate: 'mutation { saveTemplate(input: { name: "auth-tpl", imageName: "img" }) { id } }',
  podTemplate: `{ podTemplate(id: "${tpl}") { id } }`,
});

describe('GraphQL auth', () => {
  const cases: [string, { key?: string | null; bearer?: string }][] = [
    ['no key at all', { key: null }],
    ['a wrong api_key', { key: 'wrong' }],
    ['an empty api_key', { key: '' }],
    ['a wrong Bearer token', { key: null, bearer: 'wrong' }],
  ];
  for (const [what, auth] of cases) {
    it(`every operation answers 401 UNAUTHENTICATED for ${what}`, async () => {
      for (const [op, query] of Object.entries(OPERATIONS())) {
        const r = await gql(p.url, query, auth);
        expect(r.status, op).toBe(401);
        expect(r.body, op).toEqual({ errors: [expect.objectContaining({ extensions: { code: 'UNAUTHENTICATED' } })] });
      }
    });
  }

  it("another user's endpoint or template is FORBIDDEN (field named), invisible, or unusable", async () => {
    const forbidden: [string, string, string][] = [
      ['modify', `mutation { saveEndpoint(input: { id: "${theirs}", workersMax: 3 }) { id } }`, 'id'],
      ['delete', `mutation { deleteEndpoint(id: "${theirs}") }`, 'id'],
      [
        'switch template',
        `mutation { updateEndpointTemplate(input: { endpointId: "${theirs}", templateId: "${tpl}" }) { id } }`,
        'id',
      ],
      [
        'modify template',
        `mutation { saveTemplate(input: { id: "${theirTpl}", imageName: "x" }) { id } }`,
        'templateId',
      ],
    ];
    for (const [what, query, field] of forbidden) {
      const r = await gql(p.url, query);
      expect(r.status, what).toBe(200);
      expect(r.body.errors[0].extensions, what).toEqual({ code: 'FORBIDDEN', field });
    }
    const use = await gql(
      p.url,
      `mutation { saveEndpoint(input: { name: "x", gpuIds: "AMPERE_16", templateId: "${theirTpl}" }) { id } }`,
    );
    expect(use.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'templateId' });
    expect((await gql(p.url, `{ podTemplate(id: "${theirTpl}") { id } }`)).body).toEqual({
      data: { podTemplate: null },
    });
    const list = await gql(p.url, '{ myself { endpoints { id } podTemplates { id } } }');
    expect(list.body.data.myself.endpoints.map((e: any) => e.id)).not.toContain(theirs);
    expect(list.body.data.myself.podTemplates.map((t: any) => t.id)).not.toContain(theirTpl);
    expect(p.registry.endpoint(theirs)!.workersMax).toBe(1);
  });
});

describe('GraphQL bad input', () => {
  const saveEndpoint = (fields: string) => `mutation { saveEndpoint(input: { ${fields} }) { id } }`;
  const create = (extra: string, base = true) =>
    saveEndpoint(`${base ? `name: "x", gpuIds: "AMPERE_16", templateId: "TPL", ` : ''}${extra}`);

  it('saveEndpoint: each invalid field gives an error naming it', async () => {
    const table: [string, string, string, string][] = [
      ['unknown GPU id', create('').replace('AMPERE_16', 'AMPERE_17'), 'BAD_USER_INPUT', 'gpuIds'],
      ['one unknown GPU of a list', create('').replace('AMPERE_16', 'AMPERE_16,H200'), 'BAD_USER_INPUT', 'gpuIds'],
      ['unknown template', create('').replace('TPL', 'nosuchtemplate'), 'BAD_USER_INPUT', 'templateId'],
      ['a pod (non-serverless) template', create('').replace('TPL', 'PODTPL'), 'BAD_USER_INPUT', 'templateId'],
      ['workersMin > workersMax', create('workersMin: 3, workersMax: 2'), 'BAD_USER_INPUT', 'workersMin'],
      [
        'workersMax below the current workersMin',
        saveEndpoint('id: "MINE", workersMax: 0'),
        'BAD_USER_INPUT',
        'workersMax',
      ],
      ['missing name on create', create('gpuIds: "AMPERE_16", templateId: "TPL"', false), 'BAD_USER_INPUT', 'name'],
      // A create without gpuIds gets the default tier (runpodctl.test.ts), as on the service.
      ['missing templateId on create', create('name: "x", gpuIds: "AMPERE_16"', false), 'BAD_USER_INPUT', 'templateId'],
      ['empty name', create('').replace('name: "x"', 'name: ""'), 'BAD_USER_INPUT', 'name'],
      ['unknown scalerType', create('scalerType: "FAST"'), 'BAD_USER_INPUT', 'scalerType'],
      ['scalerValue 0', create('scalerValue: 0'), 'BAD_USER_INPUT', 'scalerValue'],
      ['unknown location', create('locations: "US,MARS-1"'), 'BAD_USER_INPUT', 'locations'],
      ['idleTimeout 0', create('idleTimeout: 0'), 'BAD_USER_INPUT', 'idleTimeout'],
      ['negative workersMax', create('workersMax: -1'), 'BAD_USER_INPUT', 'workersMax'],
      ['gpuCount 9', create('gpuCount: 9'), 'BAD_USER_INPUT', 'gpuCount'],
      ['unknown endpoint id', saveEndpoint('id: "nosuchendpoint", workersMax: 1'), 'NOT_FOUND', 'id'],
      ['a quoted number', create('workersMin: "3"'), 'GRAPHQL_VALIDATION_FAILED', 'workersMin'],
      ['a fractional number', create('scalerValue: 1.5'), 'GRAPHQL_VALIDATION_FAILED', 'scalerValue'],
      ['an unknown input field', create('gpuType: "A100"'), 'GRAPHQL_VALIDATION_FAILED', 'gpuType'],
      ['an unknown enum value', create('flashBootType: TURBO'), 'GRAPHQL_VALIDATION_FAILED', 'flashBootType'],
    ];
    const before = p.registry.allEndpoints().length;
    for (const [what, raw, code, field] of table) {
      const query = raw.replace('PODTPL', podTpl).replace('TPL', tpl).replace('MINE', mine);
      const r = await gql(p.url, query);
      const error = r.body.errors?.[0];
      expect(error?.extensions, `${what}: ${JSON.stringify(r.body)}`).toEqual({ code, field });
      expect(error.message, what).toContain(field);
      expect(r.status, what).toBe(code.startsWith('GRAPHQL_') ? 400 : 200);
      if (r.status === 200) expect(r.body.data, what).toEqual({ saveEndpoint: null });
    }
    expect(p.registry.allEndpoints().length).toBe(before);
    expect(p.registry.endpoint(mine)!.workersMax).toBe(2);
  });

  it('saveTemplate, deleteEndpoint and updateEndpointTemplate: each invalid field is named', async () => {
    const table: [string, string, string, string][] = [
      [
        'a taken name',
        'mutation { saveTemplate(input: { name: "bad-tpl", imageName: "i" }) { id } }',
        'BAD_USER_INPUT',
        'name',
      ],
      [
        'no imageName on create',
        'mutation { saveTemplate(input: { name: "t1" }) { id } }',
        'BAD_USER_INPUT',
        'imageName',
      ],
      [
        'a bad port',
        'mutation { saveTemplate(input: { name: "t2", imageName: "i", ports: "80" }) { id } }',
        'BAD_USER_INPUT',
        'ports.0',
      ],
      [
        'an unterminated quote',
        'mutation { saveTemplate(input: { name: "t3", imageName: "i", dockerArgs: "python \'x" }) { id } }',
        'BAD_USER_INPUT',
        'dockerArgs',
      ],
      [
        'dockerArgs with dockerStartCmd',
        'mutation { saveTemplate(input: { name: "t4", imageName: "i", dockerArgs: "a", dockerStartCmd: ["b"] }) { id } }',
        'BAD_USER_INPUT',
        'dockerArgs',
      ],
      [
        'a serverless template without command',
        'mutation { saveTemplate(input: { name: "t5", imageName: "i", isServerless: true }) { id } }',
        'BAD_USER_INPUT',
        'dockerStartCmd',
      ],
      [
        'a relative volumeMountPath',
        'mutation { saveTemplate(input: { name: "t6", imageName: "i", volumeMountPath: "data" }) { id } }',
        'BAD_USER_INPUT',
        'volumeMountPath',
      ],
      [
        'isServerless changed',
        `mutation { saveTemplate(input: { id: "${tpl}", isServerless: false }) { id } }`,
        'BAD_USER_INPUT',
        'isServerless',
      ],
      [
        'an official template',
        `mutation { saveTemplate(input: { id: "${p.examples.echo!.templateId}", imageName: "x" }) { id } }`,
        'FORBIDDEN',
        'templateId',
      ],
      [
        'an unknown template id',
        'mutation { saveTemplate(input: { id: "nosuchtemplate", imageName: "x" }) { id } }',
        'NOT_FOUND',
        'templateId',
      ],
      ['delete of an unknown endpoint', 'mutation { deleteEndpoint(id: "nosuchendpoint") }', 'NOT_FOUND', 'id'],
      [
        'delete of an endpoint with workers',
        `mutation { deleteEndpoint(id: "${mine}") }`,
        'FAILED_PRECONDITION',
        'workersMax',
      ],
      ['delete without id', 'mutation { deleteEndpoint }', 'GRAPHQL_VALIDATION_FAILED', 'id'],
      [
        'switch to an unknown template',
        `mutation { updateEndpointTemplate(input: { endpointId: "${mine}", templateId: "nope" }) { id } }`,
        'BAD_USER_INPUT',
        'templateId',
      ],
    ];
    for (const [what, query, code, field] of table) {
      const r = await gql(p.url, query);
      const error = r.body.errors?.[0];
      expect(error?.extensions, `${what}: ${JSON.stringify(r.body)}`).toEqual({ code, field });
      expect(error.message, what).toContain(field.split('.')[0]);
    }
    expect(p.registry.templateByName('t1')).toBeUndefined();
    expect(p.registry.endpoint(mine)).toBeDefined();
  });

  it('request-level failures are 400 with an envelope and no data', async () => {
    const raw = (body: string) =>
      call(p.url, 'POST', '/graphql?api_key=test-key', {
        key: null,
        raw: body,
        headers: { 'content-type': 'application/json' },
      });
    const table: [string, Promise<any>, string][] = [
      ['a body that is not JSON', raw('{"query": '), 'BAD_REQUEST'],
      ['an empty body', raw(''), 'BAD_REQUEST'],
      ['no query', raw('{"variables": {}}'), 'BAD_REQUEST'],
      ['a syntax error', gql(p.url, 'mutation { saveEndpoint(input: { name: "x" }'), 'GRAPHQL_PARSE_FAILED'],
      ['an unknown field', gql(p.url, '{ myself { credits } }'), 'GRAPHQL_VALIDATION_FAILED'],
      [
        'a missing sub-selection',
        gql(p.url, `mutation { saveEndpoint(input: { id: "${mine}" }) }`),
        'GRAPHQL_VALIDATION_FAILED',
      ],
      [
        'a variable of the wrong type',
        gql(p.url, 'mutation S($input: EndpointInput!) { saveEndpoint(input: $input) { id } }', {
          variables: { input: { id: mine, workersMin: 'two' } },
        }),
        'BAD_USER_INPUT',
      ],
      [
        'an unknown operation name',
        call(p.url, 'POST', '/graphql?api_key=test-key', {
          key: null,
          body: { query: '{ myself { id } }', operationName: 'Nope' },
        }),
        'BAD_USER_INPUT',
      ],
    ];
    for (const [what, pending, code] of table) {
      const r = await pending;
      expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.data, what).toBeUndefined();
      expect(r.body.errors[0].extensions.code, what).toBe(code);
    }
    const variable = await gql(p.url, 'mutation S($input: EndpointInput!) { saveEndpoint(input: $input) { id } }', {
      variables: { input: { id: mine, workersMin: 'two' } },
    });
    expect(variable.body.errors[0].message).toMatch(/input\.workersMin/);
    expect((await call(p.url, 'GET', '/graphql?api_key=test-key', { key: null })).status).toBe(405);
  });
});

describe('REST auth and bad input', () => {
  it('every REST operation answers 401 without a token or with a wrong one', async () => {
    const ops: [string, string, unknown?][] = [
      ['GET', `/v1/pods/${podId}?includeWorkers=true`],
      ['GET', '/v1/pods?includeWorkers=true'],
      ['POST', '/v1/templates', { name: 'auth-rest', imageName: 'i' }],
      ['GET', '/v1/templates'],
      ['GET', `/v1/templates/${tpl}`],
      ['POST', `/v1/templates/${tpl}/update`, { imageName: 'x' }],
    ];
    for (const [method, path, body] of ops) {
      for (const key of [null, 'wrong']) {
        const r = await call(p.url, method, path, { key, ...(body ? { body } : {}) });
        expect(r.status, `${method} ${path} key=${key}`).toBe(401);
        expect(r.body.error, path).toMatch(/API key/);
      }
    }
    expect(p.registry.templateByName('auth-rest')).toBeUndefined();
    expect(p.registry.template(tpl)!.imageName).toBe('local/test:1');
  });

  it("another user's pod or template: 401; unknown ones: 404", async () => {
    const as = (key: string) => ({ key });
    expect((await call(p.url, 'GET', `/v1/pods/${podId}?includeWorkers=true`, as(otherKey))).status).toBe(401);
    expect(
      (await call(p.url, 'GET', '/v1/pods?includeWorkers=true', as(otherKey))).body.map((x: any) => x.id),
    ).not.toContain(podId);
    expect((await call(p.url, 'GET', `/v1/templates/${tpl}`, as(otherKey))).status).toBe(401);
    expect(
      (await call(p.url, 'POST', `/v1/templates/${tpl}/update`, { key: otherKey, body: { imageName: 'x' } })).status,
    ).toBe(401);
    expect((await call(p.url, 'GET', '/v1/templates/nosuchtemplate')).status).toBe(404);
    expect((await call(p.url, 'POST', '/v1/templates/nosuchtemplate/update', { body: {} })).status).toBe(404);
    expect((await call(p.url, 'GET', '/v1/pods/..%2F..?includeWorkers=true')).status).toBe(404);
  });

  it('bad bodies and query flags: 400 naming the field', async () => {
    const create: [unknown, RegExp][] = [
      [{ imageName: 'i' }, /name/],
      [{ name: 'r1' }, /imageName/],
      [{ name: 'r2', imageName: 'i', containerDiskInGb: 'big' }, /containerDiskInGb/],
      [{ name: 'r3', imageName: 'i', ports: ['80'] }, /ports/],
      [{ name: 'r4', imageName: 'i', env: { A: 1 } }, /env/],
      [{ name: 'r5', imageName: 'i', volumeMountPath: 'rel' }, /volumeMountPath/],
      [{ name: 'r6', imageName: 'i', category: 'TPU' }, /category/],
      [{ name: 'r7', imageName: 'i', gpu: 'A100' }, /gpu/],
      [{ name: 'r8', imageName: 'i', isServerless: true }, /dockerStartCmd/],
      [{ name: 'bad-tpl', imageName: 'i' }, /already exists/],
      [[1, 2], /expected object/i],
    ];
    for (const [body, field] of create) {
      const r = await call(p.url, 'POST', '/v1/templates', { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error, JSON.stringify(body)).toMatch(field);
    }
    const update: [unknown, RegExp][] = [
      [{ dockerStartCmd: 'python x.py' }, /dockerStartCmd/],
      [{ isPublic: 'yes' }, /isPublic/],
      [{ name: '' }, /name/],
      [{ name: 'pod-only' }, /already exists/],
      [{ isServerless: false }, /isServerless/],
      [{ dockerStartCmd: [] }, /dockerStartCmd/],
    ];
    for (const [body, field] of update) {
      const r = await call(p.url, 'POST', `/v1/templates/${tpl}/update`, { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error, JSON.stringify(body)).toMatch(field);
    }
    const notJson = await call(p.url, 'POST', `/v1/templates/${tpl}/update`, {
      raw: '{oops',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    const flag = await call(p.url, 'GET', `/v1/pods/${podId}?includeWorkers=true&includeMachine=maybe`);
    expect(flag.status).toBe(400);
    expect(flag.body.error).toMatch(/includeMachine/);
    expect(p.registry.template(tpl)!.dockerStartCmd).toEqual(taggedCommand('b'));
    expect(p.registry.endpoint(mine)!.version).toBe(1);
  });
});
