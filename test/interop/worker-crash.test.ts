/**
 * A crashed worker leaves no process behind: the stock Python SDK (runpod 1.12.0) runs its
 * heartbeat in a child process, which the platform kills with the whole process group when the
 * worker's main process dies; and a platform restarted after its own crash reaps pod groups
 * whose leader is already gone.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, eventually, testPlatform, waitForStatus } from '../helpers/platform';
import { killGroup, liveGroupMembers } from '../helpers/processes';
import { gql } from '../control-plane/support';
import { requireVenvPython } from './support';

const IMAGE = 'runpod/mock-worker:latest';

describe('a Python worker that crashes', () => {
  let platform: Awaited<ReturnType<typeof testPlatform>>;
  let pgid: number | undefined;
  beforeAll(async () => {
    const venvBin = dirname(requireVenvPython());
    platform = await testPlatform({
      pods: {
        images: {
          [IMAGE]: { root: join(__dirname, 'images', 'mock-worker'), env: { PATH: `${venvBin}:/usr/bin:/bin` } },
        },
      },
    });
  });
  afterAll(async () => {
    killGroup(pgid);
    await platform?.dispose();
  });

  it('takes its heartbeat child process with it', async () => {
    const t = await gql(platform.url, 'mutation($i: SaveTemplateInput) { saveTemplate(input: $i) { id } }', {
      variables: {
        i: {
          name: 'crash-mock',
          imageName: IMAGE,
          dockerArgs: 'python -u /handler.py',
          isServerless: true,
          volumeMountPath: '',
        },
      },
    });
    const e = await gql(
      platform.url,
      `mutation { saveEndpoint(input: { name: "crash", gpuIds: "AMPERE_16", templateId: "${t.body.data.saveTemplate.id}", workersMin: 1, workersMax: 1 }) { id } }`,
    );
    const endpointId: string = e.body.data.saveEndpoint.id;
    const pod = (await eventually(() => platform.pool.podsOf(endpointId).find((p) => p.phase === 'ready'), 30_000))!;
    pgid = pod.proc!.pid!;
    // The SDK's heartbeat is a second process of the group: the case this test is about.
    await eventually(() => liveGroupMembers(pgid!).length >= 2, 10_000);

    const job = await call(platform.url, 'POST', `/v2/${endpointId}/run`, { body: { input: { mock_crash: true } } });
    const failed = await waitForStatus(platform.url, endpointId, job.body.id, ['FAILED'], 20_000);
    expect(failed.error).toMatch(/exited \(code 1/);
    await eventually(() => liveGroupMembers(pgid!).length === 0, 60_000);
  });
});

describe('a platform restarted after a crash', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-orphans-'));
  const groups: number[] = [];
  afterAll(() => {
    groups.forEach(killGroup);
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A pod-like group whose leader exits at once, leaving a child running (as an orphaned heartbeat). */
  async function orphanGroup(podId: string, env: Record<string, string>): Promise<number> {
    const leader = spawn('/bin/sh', ['-c', 'sleep 300 & exit 0'], {
      detached: true,
      stdio: 'ignore',
      env: { PATH: '/usr/bin:/bin', ...env },
    });
    const pgid = leader.pid!;
    groups.push(pgid);
    await new Promise((r) => leader.once('exit', r));
    mkdirSync(join(dataDir, 'pods', podId), { recursive: true });
    writeFileSync(join(dataDir, 'pods', podId, 'pid'), String(pgid));
    await eventually(() => liveGroupMembers(pgid).length === 1, 60_000);
    return pgid;
  }

  it('kills the groups its pods left, even when their leader is gone, and leaves a reused group id alone', async () => {
    const orphan = await orphanGroup('orphanpod01', { RUNPOD_POD_ID: 'orphanpod01' });
    const stranger = await orphanGroup('otherpod02', { RUNPOD_POD_ID: 'somebody-else' });
    const p = await testPlatform({ dataDir, seedExamples: false });
    try {
      await eventually(() => liveGroupMembers(orphan).length === 0, 60_000);
      expect(liveGroupMembers(stranger)).toHaveLength(1);
    } finally {
      await p.dispose();
    }
  });
});
