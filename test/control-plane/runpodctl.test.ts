/**
 * runpodctl's requests (runpod/runpodctl `internal/api`, not on any registry reachable here),
 * reproduced through the project's typed clients: `template create|list|update|delete`,
 * `serverless create|list|get|update|delete` (REST `/v1/endpoints`; since runpodctl 2.4 `create` is
 * GraphQL `saveEndpoint`, with no `gpuIds` unless `--gpu-id`; GraphQL `updateEndpointTemplate` with a
 * nullable `$input` for `--template-id`), `pod get` of a worker,
 * `user`, `gpu list` and `datacenter list`; and the bad input of the new operations.
 */
import { describe, expect, it } from 'vitest';
import { isPlatformApiError } from '../../platform-api';
import { call, eventually, waitForStatus } from '../helpers/platform';
import { clientsOnPlatform, failure, gql as rawGql, taggedCommand } from './support';

const ctx = clientsOnPlatform();

describe('runpodctl template and serverless commands', () => {
  it('create, list, get, update and delete a template and an endpoint, and read its worker pod', async () => {
    // template create: POST /templates (volume flags give volumeMountPath).
    const t = await ctx.rest.createTemplate({
      name: 'ctl-t',
      imageName: 'img:1',
      isServerless: true,
      dockerStartCmd: taggedCommand('ctl'),
      volumeInGb: 7,
      volumeMountPath: '/workspace',
      env: { A: '1' },
    });
    // template list: official templates over GraphQL (isRunpod true), the user's own over REST.
    const official = await ctx.gql.publicTemplates({ isRunpod: true });
    expect(official.map((x) => x.name)).toContain('sluice-example-echo');
    expect(official.every((x) => x.isRunpod)).toBe(true);
    expect((await ctx.gql.publicTemplates({ isRunpod: false })).map((x) => x.id)).not.toContain(t.id);
    expect((await ctx.rest.listTemplates()).map((x) => x.id)).toContain(t.id);
    // template update: PATCH with only the changed fields; the others stay.
    const patched = await ctx.rest.patchTemplate(t.id, { name: 'ctl-t2', readme: 'r2', containerDiskInGb: 9 });
    expect(patched).toMatchObject({
      name: 'ctl-t2',
      readme: 'r2',
      containerDiskInGb: 9,
      volumeInGb: 7,
      env: { A: '1' },
      imageName: 'img:1',
    });

    // serverless create over REST (the reference's EndpointCreateInput).
    const e = await ctx.rest.createEndpoint({
      templateId: t.id,
      name: 'ctl-ep',
      gpuTypeIds: ['NVIDIA RTX A4000'],
      dataCenterIds: ['EU-RO-1'],
      workersMin: 1,
      workersMax: 1,
      flashboot: true,
      executionTimeoutMs: 600_000,
      idleTimeout: 7,
    });
    expect(e).toMatchObject({
      name: 'ctl-ep',
      templateId: t.id,
      gpuTypeIds: ['NVIDIA RTX A4000'],
      dataCenterIds: ['EU-RO-1'],
      workersMin: 1,
      workersMax: 1,
      executionTimeoutMs: 600_000,
      idleTimeout: 7,
      version: 1,
      computeType: 'GPU',
    });
    expect((await ctx.rest.listEndpoints()).map((x) => x.id)).toContain(e.id);
    const got = await ctx.rest.getEndpoint(e.id, { template: true, workers: true });
    expect(got.template).toMatchObject({ id: t.id, name: 'ctl-t2' });

    // pod get: GET /pods/{id} with runpodctl's flags only (it cannot send includeWorkers).
    const pod = (await eventually(async () => (await ctx.rest.getEndpoint(e.id, { workers: true })).workers?.[0]))!;
    const read = await ctx.rest.getPod(pod.id, { machine: true, networkVolume: true });
    expect(read).toMatchObject({ id: pod.id, endpointId: e.id, machine: { dataCenterId: 'EU-RO-1' } });

    // serverless update: PATCH the scaling fields, then --template-id through GraphQL with a nullable $input.
    const updated = await ctx.rest.updateEndpoint(e.id, {
      name: 'ctl-ep2',
      workersMax: 2,
      idleTimeout: 11,
      scalerType: 'REQUEST_COUNT',
      scalerValue: 2,
    });
    expect(updated).toMatchObject({
      name: 'ctl-ep2',
      workersMax: 2,
      idleTimeout: 11,
      scalerType: 'REQUEST_COUNT',
      version: 1,
    });
    const t3 = await ctx.rest.createTemplate({
      name: 'ctl-t3',
      imageName: 'img:3',
      isServerless: true,
      dockerStartCmd: taggedCommand('ctl3'),
    });
    expect(await ctx.gql.updateEndpointTemplate(e.id, t3.id)).toMatchObject({ templateId: t3.id, version: 2 });

    // template delete is refused while an endpoint uses the template.
    const inUse = await failure(ctx.rest.deleteTemplate(t3.id));
    expect(inUse.status).toBe(400);
    expect(inUse.body.error).toMatch(/used by endpoint/);
    // serverless delete: DELETE with workers still up scales down and deletes.
    await ctx.rest.deleteEndpoint(e.id);
    expect(isPlatformApiError(await failure(ctx.rest.getEndpoint(e.id)), 'NOT_FOUND')).toBe(true);
    await eventually(() => ctx.p.pool.podsOf(e.id).every((x) => x.phase === 'exited'), 10_000);
    await ctx.rest.deleteTemplate(t3.id);
    await ctx.rest.deleteTemplate(t.id);
    expect(isPlatformApiError(await failure(ctx.rest.getTemplate(t.id)), 'NOT_FOUND')).toBe(true);
  });

  it('serverless create with only --name and --template-id (no gpuIds) gets the default GPU tier; no template is refused', async () => {
    // runpodctl >= 2.4 sends every create as GraphQL saveEndpoint; without --gpu-id the input has
    // no gpuIds (its Go struct omits empty fields: workersMin 0 too), and the real service accepts it.
    const mutation = `
		mutation SaveEndpoint($input: EndpointInput!) {
			saveEndpoint(input: $input) {
				id name templateId gpuIds instanceIds computeType networkVolumeId
				networkVolumeIds { networkVolumeId dataCenterId }
				locations idleTimeout scalerType scalerValue workersMin workersMax gpuCount
				minCudaVersion executionTimeoutMs flashBootType modelReferences
			}
		}`;
    const templateId = ctx.p.examples.echo!.templateId;
    const input = { name: 'ctl-nogpu', templateId, gpuCount: 1, workersMax: 3, flashBootType: 'FLASHBOOT' };
    const created = await rawGql(ctx.p.url, mutation, { variables: { input } });
    expect(created.body.errors, JSON.stringify(created.body)).toBeUndefined();
    const e = created.body.data.saveEndpoint;
    expect(e).toMatchObject({ name: 'ctl-nogpu', templateId, gpuIds: 'AMPERE_16', gpuCount: 1, workersMin: 0 });
    // The same default as a REST create without gpuTypeIds (what runpodctl before 2.4 sent).
    const rest = await ctx.rest.createEndpoint({ name: 'ctl-nogpu-rest', templateId, gpuCount: 1, workersMax: 3 });
    expect(rest.gpuTypeIds).toEqual(['NVIDIA RTX A4000']);
    expect((await ctx.rest.getEndpoint(e.id)).gpuTypeIds).toEqual(rest.gpuTypeIds);
    // A create that names no template is still refused, over GraphQL and REST.
    const { templateId: _t, ...noTemplate } = input;
    const refused = await rawGql(ctx.p.url, mutation, { variables: { input: noTemplate } });
    expect(refused.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'templateId' } });
    const restRefused = await call(ctx.p.url, 'POST', '/v1/endpoints', { body: { name: 'x', gpuCount: 1 } });
    expect(restRefused.status).toBe(400);
    expect(restRefused.body.error).toMatch(/templateId/);
    await ctx.rest.deleteEndpoint(e.id);
    await ctx.rest.deleteEndpoint(rest.id);
  });

  it('an endpoint executionTimeoutMs is the default timeout of its jobs', async () => {
    const e = await ctx.rest.createEndpoint({
      templateId: ctx.p.examples.sleep!.templateId,
      name: 'ctl-timeout',
      executionTimeoutMs: 5000,
      workersMax: 1,
    });
    const slow = await call(ctx.p.url, 'POST', `/v2/${e.id}/run`, { body: { input: { ms: 20_000 } } });
    const own = await call(ctx.p.url, 'POST', `/v2/${e.id}/run`, {
      body: { input: { ms: 10 }, policy: { executionTimeout: 60_000 } },
    });
    const timedOut = await waitForStatus(ctx.p.url, e.id, slow.body.id, ['TIMED_OUT', 'COMPLETED'], 20_000);
    expect(timedOut.status).toBe('TIMED_OUT');
    expect(timedOut.error).toMatch(/executionTimeout of 5000 ms/);
    expect((await waitForStatus(ctx.p.url, e.id, own.body.id, ['COMPLETED'], 20_000)).output).toEqual({ slept: 10 });
    await ctx.rest.deleteEndpoint(e.id);
  });

  it('user, gpu list and datacenter list get the fields they select', async () => {
    expect(await ctx.gql.account()).toMatchObject({
      id: ctx.p.user.id,
      email: 'default@localhost',
      clientBalance: 0,
      spendLimit: null,
      notifyLowBalance: false,
    });
    const gpus = await ctx.gql.gpuTypes();
    expect(gpus.find((g) => g.id === 'NVIDIA GeForce RTX 4090')).toMatchObject({
      displayName: 'RTX 4090',
      memoryInGb: 24,
      secureCloud: true,
    });
    const dcs = await ctx.gql.dataCenters();
    const ro = dcs.find((d) => d.id === 'EU-RO-1')!;
    expect(ro).toMatchObject({ location: 'Romania' });
    expect(ro.gpuAvailability.map((g) => g.gpuTypeId)).toEqual(gpus.map((g) => g.id));
    // Every data center Flash places endpoints in is known.
    for (const id of ['US-CA-2', 'US-KS-2', 'US-MO-1', 'US-MO-2', 'US-NC-2', 'US-NE-1', 'US-WA-1', 'EUR-NO-1'])
      expect(dcs.map((d) => d.id)).toContain(id);
  });
});

describe("the official tools' template GraphQL (runpodctl, the test runner, Flash)", () => {
  it('saveTemplate with a nullable $input, volumeMountPath "", the console fields, and deleteTemplate', async () => {
    const saved = await ctx.gql.saveTemplate({
      name: 'runner-t',
      imageName: 'img:r',
      dockerArgs: 'python -u /handler.py',
      isServerless: true,
      volumeMountPath: '',
      advancedStart: true,
      startScript: 'echo ready',
      startSsh: true,
      startJupyter: false,
      containerRegistryAuthId: '',
      ports: '',
      env: [],
    });
    expect(saved).toMatchObject({
      volumeMountPath: '/workspace',
      advancedStart: true,
      startScript: 'echo ready',
      startSsh: true,
      startJupyter: false,
      containerRegistryAuthId: null,
    });
    const again = await ctx.gql.saveTemplate({ id: saved.id, readme: 'x', volumeMountPath: '' });
    expect(again).toMatchObject({
      readme: 'x',
      advancedStart: true,
      startScript: 'echo ready',
      volumeMountPath: '/workspace',
    });
    // Only the wire Template over REST: the console fields are GraphQL's.
    expect(await ctx.rest.getTemplate(saved.id)).not.toHaveProperty('advancedStart');
    await ctx.gql.deleteTemplate('runner-t');
    expect(await ctx.gql.getTemplate(saved.id)).toBeUndefined();
  });

  it('a missing input or template name is a BAD_USER_INPUT naming it; unknown names are NOT_FOUND', async () => {
    const noInput = await rawGql(ctx.p.url, 'mutation($i: SaveTemplateInput) { saveTemplate(input: $i) { id } }', {
      variables: {},
    });
    expect(noInput.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'input' } });
    const noSwitch = await rawGql(ctx.p.url, 'mutation { updateEndpointTemplate(input: null) { id } }');
    expect(noSwitch.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input' });
    expect((await rawGql(ctx.p.url, 'mutation { deleteTemplate }')).body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'templateName',
    });
    expect(isPlatformApiError(await failure(ctx.gql.deleteTemplate('no-such-template')), 'NOT_FOUND')).toBe(true);
    const official = await failure(ctx.gql.deleteTemplate('sluice-example-echo'));
    expect(official.message).toMatch(/official template/);
  });
});

describe('bad input of the REST endpoint operations', () => {
  it('answers 4xx with a JSON error naming the problem', async () => {
    const post = (body: unknown) => call(ctx.p.url, 'POST', '/v1/endpoints', { body });
    expect((await post({ name: 'x' })).body.error).toMatch(/templateId/);
    const gpu = await post({ templateId: ctx.p.examples.echo!.templateId, gpuTypeIds: ['NVIDIA B200'] });
    expect(gpu.status).toBe(400);
    expect(gpu.body.error).toMatch(/gpuTypeIds: unknown GPU type "NVIDIA B200"/);
    expect((await post({ templateId: ctx.p.examples.echo!.templateId, dataCenterIds: ['MARS-1'] })).body.error).toMatch(
      /locations: unknown data center/,
    );
    expect((await post({ templateId: ctx.p.examples.echo!.templateId, workersMax: -1 })).status).toBe(400);
    expect((await post({ templateId: ctx.p.examples.echo!.templateId, bogus: 1 })).body.error).toMatch(/bogus/);
    expect(
      (
        await call(ctx.p.url, 'PATCH', `/v1/endpoints/${ctx.p.examples.echo!.id}`, {
          body: { workersMin: 5, workersMax: 1 },
        })
      ).body.error,
    ).toMatch(/workersMin/);
    expect((await call(ctx.p.url, 'PATCH', '/v1/endpoints/nosuch', { body: {} })).status).toBe(404);
    expect((await call(ctx.p.url, 'DELETE', '/v1/endpoints/nosuch')).status).toBe(404);
    expect((await call(ctx.p.url, 'GET', '/v1/endpoints', { key: 'wrong' })).status).toBe(401);
    expect((await call(ctx.p.url, 'GET', '/v1/endpoints?includeWorkers=maybe')).body.error).toMatch(/includeWorkers/);
    expect(
      (await call(ctx.p.url, 'PATCH', `/v1/templates/${ctx.p.examples.echo!.templateId}`, { body: { readme: 'x' } }))
        .status,
    ).toBe(401);
    expect((await call(ctx.p.url, 'DELETE', '/v1/templates/nosuch')).status).toBe(404);
  });
});
