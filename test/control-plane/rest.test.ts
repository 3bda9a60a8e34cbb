/**
 * REST control plane: a worker pod read through `GET /v1/pods/{id}` matches the real process
 * behind it, and templates are created and updated with the spec's defaults.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pod, Template } from '../../contracts';
import { call, eventually, testPlatform, waitForStatus } from '../helpers/platform';
import { gql, gqlEndpoint, restTemplate, taggedCommand } from './support';

type P = Awaited<ReturnType<typeof testPlatform>>;

let p: P;
beforeAll(async () => {
  p = await testPlatform();
});
afterAll(() => p.dispose());

describe('GET /v1/pods/{podId}', () => {
  let endpointId: string;
  let templateId: string;
  let podId: string;

  beforeAll(async () => {
    templateId = await restTemplate(p.url, 'rest-pod-tpl', taggedCommand('pod'), {
      env: { GREETING: 'hi' },
      ports: ['8000/http'],
      containerDiskInGb: 7,
      volumeInGb: 3,
    });
    const e = await gqlEndpoint(
      p.url,
      `name: "rest-pods", gpuIds: "ADA_80_PRO", templateId: "${templateId}", workersMin: 1, workersMax: 1, gpuCount: 2, locations: "EU-SE-1", networkVolumeId: "vol123"`,
    );
    endpointId = e.id;
    // The worker answers with its own RUNPOD_POD_ID: the REST view must describe that process.
    const run = await call(p.url, 'POST', `/v2/${endpointId}/runsync`, { body: { input: {} } });
    expect(run.body.status).toBe('COMPLETED');
    podId = run.body.output.pod;
    expect(run.body.workerId).toBe(podId);
  });

  it('returns every Pod field of the spec, consistent with the worker process', async () => {
    const r = await call(p.url, 'GET', `/v1/pods/${podId}?includeWorkers=true`);
    expect(r.status).toBe(200);
    const pod = Pod.parse(r.body);
    expect(Object.keys(r.body).sort()).toEqual([
      'adjustedCostPerHr',
      'aiApiId',
      'consumerUserId',
      'containerDiskInGb',
      'containerRegistryAuthId',
      'costPerHr',
      'cpuFlavorId',
      'desiredStatus',
      'dockerEntrypoint',
      'dockerStartCmd',
      'endpointId',
      'env',
      'gpu',
      'id',
      'image',
      'interruptible',
      'lastStartedAt',
      'lastStatusChange',
      'locked',
      'machineId',
      'memoryInGb',
      'name',
      'portMappings',
      'ports',
      'publicIp',
      'slsVersion',
      'templateId',
      'vcpuCount',
      'volumeEncrypted',
      'volumeInGb',
      'volumeMountPath',
    ]);
    expect(pod).toMatchObject({
      id: podId,
      endpointId,
      aiApiId: endpointId,
      slsVersion: 1,
      templateId,
      desiredStatus: 'RUNNING',
      consumerUserId: p.user.id,
      image: 'local/test:1',
      dockerStartCmd: taggedCommand('pod'),
      dockerEntrypoint: [],
      ports: ['8000/http'],
      containerDiskInGb: 7,
      volumeInGb: 3,
      volumeMountPath: '/workspace',
      interruptible: false,
      locked: false,
      publicIp: null,
      portMappings: {},
      costPerHr: 8.36,
      adjustedCostPerHr: 8.36,
      vcpuCount: 40,
      memoryInGb: 376,
      cpuFlavorId: null,
      gpu: { id: 'NVIDIA H100 80GB HBM3', count: 2, displayName: 'H100 SXM' },
    });
    expect(pod.name).toBe('rest-pods worker');
    expect(Date.parse(pod.lastStartedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(pod.env).toMatchObject({
      GREETING: 'hi',
      RUNPOD_POD_ID: podId,
      RUNPOD_ENDPOINT_ID: endpointId,
      RUNPOD_GPU_COUNT: '2',
      RUNPOD_CPU_COUNT: '40',
      RUNPOD_DC_ID: 'EU-SE-1',
    });
    // The worker's own key stays secret.
    expect(pod.env.RUNPOD_AI_API_KEY).toBe('<redacted>');
  });

  it('adds machine, network volume, savings plans and template on request', async () => {
    const r = await call(
      p.url,
      'GET',
      `/v1/pods/${podId}?includeWorkers=true&includeMachine=true&includeNetworkVolume=true&includeSavingsPlans=true&includeTemplate=true`,
    );
    const pod = Pod.parse(r.body);
    expect(pod.machine).toMatchObject({
      gpuTypeId: 'NVIDIA H100 80GB HBM3',
      dataCenterId: 'EU-SE-1',
      location: 'Sweden',
      costPerHr: 8.36,
      gpuDisplayName: 'H100 SXM',
    });
    expect(pod.machineId).toBe('local-eu-se-1-ada80pro');
    expect(pod.networkVolume).toEqual({ id: 'vol123', name: 'vol123', size: 0, dataCenterId: 'EU-SE-1' });
    expect(pod.savingsPlans).toEqual([]);
    expect(pod.template).toMatchObject({ id: templateId, name: 'rest-pod-tpl', env: { GREETING: 'hi' } });
    expect(Template.parse(pod.template)).not.toHaveProperty('userId');
  });

  it('a worker pod is read by id without includeWorkers (runpodctl pod get); only lists need the flag; unknown pods are 404', async () => {
    // runpodctl `pod get <id>`: GET /pods/{id} with no include flags.
    const plain = await call(p.url, 'GET', `/v1/pods/${podId}`);
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ id: podId, endpointId });
    expect(plain.body).not.toHaveProperty('machine');
    expect(
      (await call(p.url, 'GET', `/v1/pods/${podId}?includeWorkers=false&includeMachine=true`)).body.machine,
    ).toBeDefined();
    expect((await call(p.url, 'GET', `/v1/pods?endpointId=${endpointId}`)).body).toEqual([]);
    const unknown = await call(p.url, 'GET', '/v1/pods/nosuchpod?includeWorkers=true');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/pod nosuchpod not found/);
    const list = await call(p.url, 'GET', `/v1/pods?includeWorkers=true&endpointId=${endpointId}`);
    expect(list.body.map((x: any) => x.id)).toEqual([podId]);
  });

  it('a stopped worker reads as TERMINATED for a while', async () => {
    await gql(p.url, `mutation { saveEndpoint(input: { id: "${endpointId}", workersMin: 0, workersMax: 0 }) { id } }`);
    const pod = await eventually(async () => {
      const r = await call(p.url, 'GET', `/v1/pods/${podId}?includeWorkers=true`);
      return r.body.desiredStatus === 'TERMINATED' ? r.body : undefined;
    }, 10_000);
    expect(pod.lastStatusChange).toMatch(/workersMax lowered|Exited|Stopping/);
  });
});

describe('templates over REST', () => {
  it('POST /v1/templates applies the spec defaults and returns the Template', async () => {
    const r = await call(p.url, 'POST', '/v1/templates', { body: { name: 'defaults', imageName: 'img:1' } });
    expect(r.status).toBe(200);
    expect(Template.parse(r.body)).toEqual({
      id: r.body.id,
      name: 'defaults',
      imageName: 'img:1',
      category: 'NVIDIA',
      containerDiskInGb: 50,
      containerRegistryAuthId: null,
      dockerEntrypoint: [],
      dockerStartCmd: [],
      env: {},
      isPublic: false,
      isRunpod: false,
      isServerless: false,
      ports: [],
      readme: '',
      earned: 0,
      runtimeInMin: 0,
      volumeInGb: 20,
      volumeMountPath: '/workspace',
    });
    const dup = await call(p.url, 'POST', '/v1/templates', { body: { name: 'defaults', imageName: 'img:2' } });
    expect(dup.status).toBe(400);
    expect(dup.body.error).toMatch(/name.*"defaults" already exists|"defaults" already exists/);
  });

  it('update applies every body field, resets omitted defaulted fields, and keeps the rest', async () => {
    const id = await restTemplate(p.url, 'upd', taggedCommand('a'), {
      env: { K: 'v' },
      containerDiskInGb: 5,
      volumeInGb: 1,
      readme: 'old',
      isPublic: true,
    });
    const body = {
      containerDiskInGb: 12,
      containerRegistryAuthId: 'auth1',
      dockerEntrypoint: ['/usr/bin/env'],
      dockerStartCmd: taggedCommand('b'),
      env: { K: 'w' },
      imageName: 'img:9',
      isPublic: true,
      name: 'upd-2',
      ports: ['80/http', '22/tcp'],
      readme: '# hi',
      volumeInGb: 4,
      volumeMountPath: '/data',
    };
    const full = await call(p.url, 'POST', `/v1/templates/${id}/update`, { body });
    expect(full.status).toBe(200);
    expect(Template.parse(full.body)).toMatchObject({ id, ...body, isServerless: true });
    const bare = await call(p.url, 'POST', `/v1/templates/${id}/update`, { body: {} });
    expect(bare.body).toMatchObject({
      containerDiskInGb: 50,
      isPublic: false,
      readme: '',
      volumeInGb: 20,
      volumeMountPath: '/workspace',
      name: 'upd-2',
      imageName: 'img:9',
      env: { K: 'w' },
      ports: ['80/http', '22/tcp'],
      containerRegistryAuthId: 'auth1',
    });
    const read = await call(p.url, 'GET', `/v1/templates/${id}`);
    expect(read.body).toEqual(bare.body);
  });

  it('an update bumps the version (slsVersion) of every endpoint using the template', async () => {
    const id = await restTemplate(p.url, 'bump', taggedCommand('a'));
    const e1 = await gqlEndpoint(p.url, `name: "bump-1", gpuIds: "AMPERE_16", templateId: "${id}", workersMax: 0`);
    const e2 = await gqlEndpoint(p.url, `name: "bump-2", gpuIds: "AMPERE_16", templateId: "${id}", workersMax: 0`);
    await call(p.url, 'POST', `/v1/templates/${id}/update`, { body: { dockerStartCmd: taggedCommand('b') } });
    const r = await gql(p.url, '{ myself { endpoints { id version } } }');
    const versions = Object.fromEntries(r.body.data.myself.endpoints.map((e: any) => [e.id, e.version]));
    expect([versions[e1.id], versions[e2.id]]).toEqual([2, 2]);
  });

  it('official example templates cannot be changed', async () => {
    const echoTemplate = p.examples.echo!.templateId;
    const r = await call(p.url, 'POST', `/v1/templates/${echoTemplate}/update`, { body: { imageName: 'x' } });
    expect(r.status).toBe(401);
    expect(r.body.error).toMatch(/official template/);
    const job = await call(p.url, 'POST', `/v2/${p.examples.echo!.id}/run`, { body: { input: { still: 'works' } } });
    await waitForStatus(p.url, p.examples.echo!.id, job.body.id, ['COMPLETED']);
  });
});
