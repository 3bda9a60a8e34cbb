/**
 * The project's typed clients (platform-api) against the real platform: every GraphQL and
 * REST control-plane operation, and how failures map to the typed errors.
 */
import { describe, expect, it } from 'vitest';
import { GraphqlClient, RestClient, graphqlErrorField, isPlatformApiError } from '../../platform-api';
import { eventually } from '../helpers/platform';
import { clientsOnPlatform, failure, taggedCommand } from './support';

const ctx = clientsOnPlatform({ seedExamples: false });

describe('GraphqlClient', () => {
  it('saves templates and endpoints, lists, switches the template, and deletes', async () => {
    const t1 = await ctx.gql.saveTemplate({
      name: 'client-t1',
      imageName: 'img:1',
      dockerStartCmd: taggedCommand('one'),
      isServerless: true,
      env: [{ key: 'A', value: 'b' }],
    });
    expect(t1).toMatchObject({
      name: 'client-t1',
      isServerless: true,
      env: [{ key: 'A', value: 'b' }],
      containerDiskInGb: 50,
    });
    const t2 = await ctx.gql.saveTemplate({
      name: 'client-t2',
      imageName: 'img:2',
      dockerArgs: taggedCommand('two').join(' '),
      isServerless: true,
    });
    expect(t2.dockerStartCmd).toEqual(taggedCommand('two'));
    expect(await ctx.gql.getTemplate(t1.id)).toEqual(t1);
    expect(await ctx.gql.getTemplate('nosuchtemplate')).toBeUndefined();
    expect((await ctx.gql.listTemplates()).map((t) => t.name).sort()).toEqual(['client-t1', 'client-t2']);

    const e = await ctx.gql.saveEndpoint({
      name: 'client-ep',
      gpuIds: 'AMPERE_48',
      templateId: t1.id,
      workersMin: 1,
      workersMax: 2,
      flashBootType: 'FLASHBOOT',
    });
    expect(e).toMatchObject({
      name: 'client-ep',
      gpuIds: 'AMPERE_48',
      flashBootType: 'FLASHBOOT',
      workersMin: 1,
      workersMax: 2,
      version: 1,
      gpuCount: 1,
      scalerType: 'QUEUE_DELAY',
      idleTimeout: 5,
    });
    const listed = await eventually(async () => {
      const me = await ctx.gql.listEndpoints();
      const found = me.endpoints.find((x) => x.id === e.id);
      return found?.pods?.length === 1 ? { me, found } : undefined;
    });
    expect(listed!.me.serverlessDiscount).toBeNull();
    expect(listed!.found.pods![0]).toMatchObject({ desiredStatus: 'RUNNING', slsVersion: 1 });

    const modified = await ctx.gql.saveEndpoint({ id: e.id, idleTimeout: 9 });
    expect(modified).toMatchObject({ id: e.id, idleTimeout: 9, version: 1, name: 'client-ep' });
    const switched = await ctx.gql.updateEndpointTemplate(e.id, t2.id);
    expect(switched).toMatchObject({ templateId: t2.id, version: 2 });

    const refused = await failure(ctx.gql.deleteEndpoint(e.id));
    expect(isPlatformApiError(refused, 'BAD_REQUEST')).toBe(true);
    expect(graphqlErrorField(refused)).toBe('workersMax');
    expect((refused as Error).message).toMatch(/deleteEndpoint failed: .*set both to 0/);
    await ctx.gql.saveEndpoint({ id: e.id, workersMin: 0, workersMax: 0 });
    await ctx.gql.deleteEndpoint(e.id);
    expect((await ctx.gql.listEndpoints()).endpoints.map((x) => x.id)).not.toContain(e.id);
  });

  it('maps failures to the typed errors', async () => {
    const local = await failure(
      ctx.gql.saveEndpoint({ name: 'x', gpuIds: 'AMPERE_16', templateId: 't', workersMin: -1 }),
    );
    expect(isPlatformApiError(local, 'BAD_REQUEST') && local.status === undefined).toBe(true);
    expect(isPlatformApiError(await failure(ctx.gql.saveEndpoint({ name: 'x', templateId: 't' })), 'BAD_REQUEST')).toBe(
      true,
    );
    const server = await failure(
      ctx.gql.saveEndpoint({ name: 'x', gpuIds: 'AMPERE_16', templateId: 'nosuchtemplate' }),
    );
    expect(isPlatformApiError(server, 'BAD_REQUEST') && server.status === 200).toBe(true);
    expect(graphqlErrorField(server)).toBe('templateId');
    expect(isPlatformApiError(await failure(ctx.gql.deleteEndpoint('nosuchendpoint')), 'NOT_FOUND')).toBe(true);

    const other = ctx.p.users.add('client-other');
    const theirs = new GraphqlClient({ url: `${ctx.p.url}/graphql`, apiKey: other.apiKey });
    const t = await theirs.saveTemplate({
      name: 'their-client-t',
      imageName: 'i',
      dockerStartCmd: ['x'],
      isServerless: true,
    });
    const forbidden = await failure(ctx.gql.saveTemplate({ id: t.id, imageName: 'mine' }));
    expect(isPlatformApiError(forbidden, 'UNAUTHORIZED')).toBe(true);
    await theirs.close();

    const badKey = new GraphqlClient({ url: `${ctx.p.url}/graphql`, apiKey: 'wrong' });
    const unauth = await failure(badKey.listEndpoints());
    expect(isPlatformApiError(unauth, 'UNAUTHORIZED') && unauth.status === 401).toBe(true);
    expect((unauth as Error).message).toMatch(/invalid API key/);
    await badKey.close();
  });
});

describe('RestClient', () => {
  it('creates, reads, lists and updates templates; an update releases its endpoints', async () => {
    const t = await ctx.rest.createTemplate({
      name: 'rest-client-t',
      imageName: 'img:1',
      isServerless: true,
      dockerStartCmd: taggedCommand('r1'),
    });
    expect(t).toMatchObject({
      name: 'rest-client-t',
      containerDiskInGb: 50,
      volumeInGb: 20,
      category: 'NVIDIA',
      isServerless: true,
    });
    expect(await ctx.rest.getTemplate(t.id)).toEqual(t);
    expect((await ctx.rest.listTemplates()).map((x) => x.id)).toContain(t.id);
    const e = await ctx.gql.saveEndpoint({
      name: 'rest-client-ep',
      gpuIds: 'AMPERE_80',
      templateId: t.id,
      workersMin: 1,
      workersMax: 1,
    });

    const pod = (await eventually(async () =>
      (await ctx.rest.listPods({ workers: true, endpointId: e.id })).find((x) => x.slsVersion === 1),
    ))!;
    const full = await ctx.rest.getPod(pod.id, {
      workers: true,
      machine: true,
      template: true,
      savingsPlans: true,
      networkVolume: true,
    });
    expect(full).toMatchObject({
      id: pod.id,
      endpointId: e.id,
      costPerHr: 2.74,
      gpu: { displayName: 'A100 PCIe' },
      savingsPlans: [],
      template: { id: t.id },
    });
    expect(full.machine?.gpuDisplayName).toBe('A100 PCIe');
    expect(full.networkVolume).toBeUndefined();
    // A read by id finds the worker without include.workers (runpodctl's `pod get` cannot send it).
    expect((await ctx.rest.getPod(pod.id)).id).toBe(pod.id);
    expect(isPlatformApiError(await failure(ctx.rest.getPod('nosuchpod')), 'NOT_FOUND')).toBe(true);

    const updated = await ctx.rest.updateTemplate(t.id, { dockerStartCmd: taggedCommand('r2'), readme: 'v2' });
    expect(updated).toMatchObject({ readme: 'v2', dockerStartCmd: taggedCommand('r2') });
    const next = (await eventually(async () =>
      (await ctx.rest.listPods({ workers: true, endpointId: e.id })).find(
        (x) => x.slsVersion === 2 && x.desiredStatus === 'RUNNING',
      ),
    ))!;
    expect(next.dockerStartCmd.at(-1)).toBe('r2');
    await ctx.gql.saveEndpoint({ id: e.id, workersMin: 0, workersMax: 0 });
  });

  it('maps failures to the typed errors', async () => {
    expect(
      isPlatformApiError(
        await failure(ctx.rest.createTemplate({ name: 'rest-client-t', imageName: 'i' })),
        'BAD_REQUEST',
      ),
    ).toBe(true);
    const local = await failure(ctx.rest.createTemplate({ name: 'n', imageName: 'i', ports: ['80'] }));
    expect(isPlatformApiError(local, 'BAD_REQUEST') && local.status === undefined).toBe(true);
    expect(isPlatformApiError(await failure(ctx.rest.updateTemplate('nosuchtemplate', {})), 'NOT_FOUND')).toBe(true);
    expect(isPlatformApiError(await failure(ctx.rest.getPod('nosuchpod', { workers: true })), 'NOT_FOUND')).toBe(true);
    const badKey = new RestClient({ baseUrl: `${ctx.p.url}/v1`, apiKey: 'wrong' });
    expect(isPlatformApiError(await failure(badKey.listTemplates()), 'UNAUTHORIZED')).toBe(true);
    await badKey.close();
  });
});
