/**
 * The service's own tooling: the official PyPI `runpod` client (1.12.0, .tools/venv) creates
 * templates and endpoints, lists them, switches templates and deletes, over GraphQL.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPlatform } from '../helpers/platform';
import { isolatedHome, requireVenvPython } from '../interop/support';
import { taggedCommand } from './support';

let p: Awaited<ReturnType<typeof testPlatform>>;
let home: ReturnType<typeof isolatedHome>;

/** Runs a scenario of py/ctl.py; resolves with its JSON summary. */
function ctl(scenario: string, args: Record<string, unknown>): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(
      requireVenvPython(),
      ['-u', join(__dirname, 'py', 'ctl.py'), scenario, JSON.stringify(args)],
      {
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: home.dir,
          RUNPOD_API_BASE_URL: p.url,
          INTEROP_API_KEY: p.apiKey,
        },
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`ctl.py ${scenario} failed: ${err.message}\n${stdout}\n${stderr}`));
        resolve(JSON.parse(stdout.trim().split('\n').at(-1)!));
      },
    );
  });
}

beforeAll(async () => {
  requireVenvPython();
  home = isolatedHome();
  p = await testPlatform({ seedExamples: false });
});
afterAll(async () => {
  await p?.dispose();
  home?.dispose();
});

describe('runpod (PyPI) GraphQL tooling against the control plane', () => {
  it('create_template, create_endpoint, get_endpoints, update_endpoint_template, deleteEndpoint', async () => {
    const cmd = taggedCommand('py')
      .map((a) => (a.includes(' ') ? `"${a}"` : a))
      .join(' ');
    const r = await ctl('lifecycle', { name: 'py-tool', cmd });
    expect(r.template).toMatchObject({
      name: 'py-tool',
      imageName: 'local/py:1',
      isServerless: true,
      env: [{ key: 'GREETING', value: 'hello world' }],
      volumeInGb: 0,
      containerDiskInGb: 10,
    });
    expect(p.registry.template(r.template.id)!.dockerStartCmd).toEqual(taggedCommand('py'));
    expect(r.endpoint).toMatchObject({
      name: 'py-tool-ep',
      gpuIds: 'AMPERE_24',
      flashBootType: 'FLASHBOOT',
      gpuCount: 1,
      networkVolumeId: null,
      idleTimeout: 3,
      workersMax: 1,
    });
    expect(r.listed).toEqual([
      expect.objectContaining({
        id: r.endpoint.id,
        version: 1,
        type: 'QB',
        workersStandby: 0,
        env: [],
        networkVolume: null,
        userId: p.user.id,
      }),
    ]);
    expect(r.listed[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(r.switched).toEqual({ id: r.endpoint.id, templateId: expect.any(String) });
    expect(r.refused).toMatch(/QueryError: .*set both to 0/);
    expect(r.deleted).toEqual({ data: { deleteEndpoint: null } });
    expect(p.registry.endpoint(r.endpoint.id)).toBeUndefined();
  });

  it("a wrong key raises the client's authentication error (HTTP 401)", async () => {
    expect(await ctl('bad_key', {})).toMatchObject({ error: 'AuthenticationError' });
  });
});
