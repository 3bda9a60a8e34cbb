/**
 * The spec's GraphQL operations, sent as the raw query texts of the service's docs: create,
 * modify, list (with pods and the serverless discount), delete (refused, then allowed), plus
 * the template operations and the live effect of worker counts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MyEndpoints, Pod, PodTemplate } from '../../contracts';
import { call, eventually, testPlatform } from '../helpers/platform';
import { gql, health, healthUntil, restTemplate, taggedCommand } from './support';

type P = Awaited<ReturnType<typeof testPlatform>>;
const DISCOUNT = { discountFactor: 0.85, type: 'SERVERLESS', expirationDate: '2030-01-01T00:00:00.000Z' };

let p: P;
let templateId: string;
beforeAll(async () => {
  p = await testPlatform({ serverlessDiscount: DISCOUNT, seedExamples: false });
  templateId = await restTemplate(p.url, 'gql-tagged', taggedCommand('one'));
});
afterAll(() => p.dispose());

describe("GraphQL endpoint operations (the docs' query texts)", () => {
  let id: string;

  it('creates an endpoint: the data carries the selected fields and no errors key at all', async () => {
    const query = `mutation { saveEndpoint(input: { gpuIds: "AMPERE_16", idleTimeout: 5, locations: "US", name: "Generated Endpoint -fb", networkVolumeId: "", scalerType: "QUEUE_DELAY", scalerValue: 4, templateId: "${templateId}", workersMax: 3, workersMin: 0 }) { gpuIds id idleTimeout locations name scalerType scalerValue templateId workersMax workersMin } }`;
    const r = await gql(p.url, query);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['data']);
    const e = r.body.data.saveEndpoint;
    expect(e).toMatchObject({
      gpuIds: 'AMPERE_16',
      idleTimeout: 5,
      locations: 'US',
      name: 'Generated Endpoint -fb',
      scalerType: 'QUEUE_DELAY',
      scalerValue: 4,
      templateId,
      workersMax: 3,
      workersMin: 0,
    });
    expect(e.id).toMatch(/^[a-z0-9]{14}$/);
    id = e.id;
    // The service's naming convention: "-fb" asks for FlashBoot.
    const fb = await gql(p.url, `{ myself { endpoints { id flashBootType networkVolumeId version } } }`);
    expect(fb.body.data.myself.endpoints.find((x: any) => x.id === id)).toEqual({
      id,
      flashBootType: 'FLASHBOOT',
      networkVolumeId: null,
      version: 1,
    });
  });

  it('takes flashBootType as an unquoted enum literal and refuses it quoted', async () => {
    const ok = await gql(
      p.url,
      `mutation { saveEndpoint(input: { name: "fb", gpuIds: "ADA_24", templateId: "${templateId}", flashBootType: FLASHBOOT, workersMax: 0 }) { id flashBootType } }`,
    );
    expect(ok.body.data.saveEndpoint.flashBootType).toBe('FLASHBOOT');
    const quoted = await gql(
      p.url,
      `mutation { saveEndpoint(input: { name: "fb2", gpuIds: "ADA_24", templateId: "${templateId}", flashBootType: "FLASHBOOT" }) { id } }`,
    );
    expect(quoted.status).toBe(400);
    expect(quoted.body.errors[0].extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED', field: 'flashBootType' });
    await gql(p.url, `mutation { deleteEndpoint(id: "${ok.body.data.saveEndpoint.id}") }`);
  });

  it('modifies an endpoint (id plus the changed fields)', async () => {
    const query = `mutation { saveEndpoint(input: { id: "${id}", gpuIds: "AMPERE_16", name: "Generated Endpoint -fb", templateId: "${templateId}", workersMax: 0 }) { id gpuIds name templateId workersMax } }`;
    const r = await gql(p.url, query);
    expect(r.body).toEqual({
      data: { saveEndpoint: { id, gpuIds: 'AMPERE_16', name: 'Generated Endpoint -fb', templateId, workersMax: 0 } },
    });
    // Unchanged template and GPUs: no new release.
    expect(p.registry.endpoint(id)!.version).toBe(1);
  });

  it('lists endpoints with their pods and the serverless discount', async () => {
    const query =
      'query Endpoints { myself { endpoints { gpuIds id idleTimeout locations name networkVolumeId pods { desiredStatus } scalerType scalerValue templateId workersMax workersMin } serverlessDiscount { discountFactor type expirationDate } } }';
    const r = await gql(p.url, query);
    expect(r.status).toBe(200);
    expect(r.body.errors).toBeUndefined();
    const me = r.body.data.myself;
    expect(me.serverlessDiscount).toEqual(DISCOUNT);
    expect(me.endpoints.find((e: any) => e.id === id)).toEqual({
      gpuIds: 'AMPERE_16',
      id,
      idleTimeout: 5,
      locations: 'US',
      name: 'Generated Endpoint -fb',
      networkVolumeId: null,
      pods: [],
      scalerType: 'QUEUE_DELAY',
      scalerValue: 4,
      templateId,
      workersMax: 0,
      workersMin: 0,
    });
  });

  it('pods { ... } lists the live workers; their ids read through REST', async () => {
    const warm = await gql(
      p.url,
      `mutation { saveEndpoint(input: { name: "warm", gpuIds: "AMPERE_24,AMPERE_16", templateId: "${templateId}", workersMin: 1, workersMax: 1, locations: "RO" }) { id } }`,
    );
    const wid = warm.body.data.saveEndpoint.id;
    const list = await eventually(async () => {
      const r = await gql(
        p.url,
        `{ myself { endpoints { id pods { id desiredStatus slsVersion costPerHr gpu { displayName } machine { dataCenterId } } } } }`,
      );
      const e = r.body.data.myself.endpoints.find((x: any) => x.id === wid);
      return e.pods.length === 1 ? e : undefined;
    });
    const pod = list.pods[0];
    expect(pod).toMatchObject({
      desiredStatus: 'RUNNING',
      slsVersion: 1,
      costPerHr: 0.68,
      gpu: { displayName: 'RTX A5000' },
      machine: { dataCenterId: 'EU-RO-1' },
    });
    const rest = await call(p.url, 'GET', `/v1/pods/${pod.id}?includeWorkers=true`);
    expect(rest.status).toBe(200);
    expect(Pod.parse(rest.body)).toMatchObject({
      id: pod.id,
      endpointId: wid,
      aiApiId: wid,
      slsVersion: 1,
      costPerHr: 0.68,
    });
    // Scale to zero through GraphQL: the worker goes away promptly and the listing follows.
    await gql(p.url, `mutation { saveEndpoint(input: { id: "${wid}", workersMin: 0, workersMax: 0 }) { id } }`);
    await eventually(async () => {
      const r = await gql(p.url, `{ myself { endpoints { id pods { id } } } }`);
      return r.body.data.myself.endpoints.find((x: any) => x.id === wid).pods.length === 0;
    }, 10_000);
    const gone = await gql(p.url, `mutation { deleteEndpoint(id: "${wid}") }`);
    expect(gone.body).toEqual({ data: { deleteEndpoint: null } });
  });

  it('deleteEndpoint is refused until workersMin and workersMax are both 0, then returns null', async () => {
    const e = await gql(
      p.url,
      `mutation { saveEndpoint(input: { name: "del", gpuIds: "AMPERE_16", templateId: "${templateId}", workersMin: 0, workersMax: 2 }) { id } }`,
    );
    const did = e.body.data.saveEndpoint.id;
    const refused = await gql(p.url, `mutation { deleteEndpoint(id: "${did}") }`);
    expect(refused.status).toBe(200);
    expect(refused.body.data).toEqual({ deleteEndpoint: null });
    expect(refused.body.errors).toEqual([
      expect.objectContaining({
        path: ['deleteEndpoint'],
        extensions: { code: 'FAILED_PRECONDITION', field: 'workersMax' },
        message: expect.stringMatching(/workersMax 2.*set both to 0/),
      }),
    ]);
    await gql(p.url, `mutation { saveEndpoint(input: { id: "${did}", workersMax: 0 }) { id } }`);
    const ok = await gql(p.url, `mutation { deleteEndpoint(id: "${did}") }`);
    expect(ok.body).toEqual({ data: { deleteEndpoint: null } });
    expect((await call(p.url, 'GET', `/v2/${did}/health`)).status).toBe(404);
    const again = await gql(p.url, `mutation { deleteEndpoint(id: "${did}") }`);
    expect(again.body.errors[0].extensions).toEqual({ code: 'NOT_FOUND', field: 'id' });
  });

  it('accepts the key as Authorization: Bearer (the Python client) and variables', async () => {
    const r = await gql(p.url, 'query Q($x: String!) { podTemplate(id: $x) { id } }', {
      key: null,
      bearer: 'test-key',
      variables: { x: templateId },
    });
    expect(r.body).toEqual({ data: { podTemplate: { id: templateId } } });
    const list = await gql(
      p.url,
      '{ myself { endpoints { id name gpuIds templateId idleTimeout locations flashBootType scalerType scalerValue workersMin workersMax networkVolumeId gpuCount version pods { id desiredStatus slsVersion } } serverlessDiscount { discountFactor type expirationDate } } }',
      { key: null, bearer: 'test-key' },
    );
    expect(() => MyEndpoints.parse(list.body.data.myself)).not.toThrow();
  });
});

describe('GraphQL templates and worker counts', () => {
  it("saveTemplate creates and modifies a template in the real API's shape; podTemplates lists it", async () => {
    const created = await gql(
      p.url,
      `mutation { saveTemplate(input: { name: "gql-tpl", imageName: "repo/img:1", dockerArgs: "python -u 'my handler.py' --flag", containerDiskInGb: 10, volumeInGb: 0, ports: "8888/http, 22/tcp", env: [{ key: "A", value: "1" }], isServerless: true, containerRegistryAuthId: "", startSsh: true, isPublic: false, readme: "" }) { id name imageName dockerArgs dockerStartCmd ports env { key value } isServerless volumeMountPath containerRegistryAuthId category } }`,
    );
    expect(created.body.errors).toBeUndefined();
    const t = PodTemplate.partial().parse(created.body.data.saveTemplate);
    expect(t).toMatchObject({
      name: 'gql-tpl',
      imageName: 'repo/img:1',
      dockerStartCmd: ['python', '-u', 'my handler.py', '--flag'],
      dockerArgs: "python -u 'my handler.py' --flag",
      ports: '8888/http,22/tcp',
      env: [{ key: 'A', value: '1' }],
      isServerless: true,
      volumeMountPath: '/workspace',
      containerRegistryAuthId: null,
      category: 'NVIDIA',
    });
    const modified = await gql(
      p.url,
      `mutation { saveTemplate(input: { id: "${t.id}", imageName: "repo/img:2" }) { id imageName dockerStartCmd containerDiskInGb } }`,
    );
    // A GraphQL modify keeps the fields it does not name.
    expect(modified.body.data.saveTemplate).toEqual({
      id: t.id,
      imageName: 'repo/img:2',
      dockerStartCmd: ['python', '-u', 'my handler.py', '--flag'],
      containerDiskInGb: 10,
    });
    const mine = await gql(p.url, '{ myself { podTemplates { id name } } }');
    expect(mine.body.data.myself.podTemplates).toEqual(expect.arrayContaining([{ id: t.id, name: 'gql-tpl' }]));
  });

  it('workersMin and workersMax changes take effect on the live pool promptly', async () => {
    const e = await gql(
      p.url,
      `mutation { saveEndpoint(input: { name: "live", gpuIds: "AMPERE_16", templateId: "${templateId}", workersMin: 0, workersMax: 2, idleTimeout: 60 }) { id } }`,
    );
    const eid = e.body.data.saveEndpoint.id;
    expect((await health(p.url, eid)).workers).toMatchObject({ idle: 0, running: 0 });
    let t0 = Date.now();
    await gql(p.url, `mutation { saveEndpoint(input: { id: "${eid}", workersMin: 2 }) { id } }`);
    await healthUntil(p.url, eid, (h) => h.workers.idle === 2, 15_000);
    const up = Date.now() - t0;
    t0 = Date.now();
    await gql(p.url, `mutation { saveEndpoint(input: { id: "${eid}", workersMin: 0, workersMax: 1 }) { id } }`);
    await eventually(
      () => p.pool.podsOf(eid).filter((x) => x.phase !== 'exited' && x.phase !== 'stopping').length === 1,
      10_000,
      20,
    );
    const down = Date.now() - t0;
    // Cold start is 0 here; the time is the worker processes' own start-up.
    expect(up).toBeLessThan(10_000);
    expect(down).toBeLessThan(1_000);
    await gql(p.url, `mutation { saveEndpoint(input: { id: "${eid}", workersMax: 0 }) { id } }`);
  });
});
