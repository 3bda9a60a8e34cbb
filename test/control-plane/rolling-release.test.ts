/**
 * Rolling release under load: jobs are submitted continuously while the template is updated.
 * Every job must complete, the endpoint version must go up, workers must be replaced one at a
 * time, and the new workers must run the new command.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pod } from '../../contracts';
import { type WorkerPod } from '../../platform/pods/pod';
import { call, eventually, testPlatform, waitForStatus } from '../helpers/platform';
import { gql, gqlEndpoint, restTemplate, taggedCommand } from './support';

type P = Awaited<ReturnType<typeof testPlatform>>;

let p: P;
beforeAll(async () => {
  p = await testPlatform({ seedExamples: false });
});
afterAll(() => p.dispose());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const serving = (pods: WorkerPod[]) => pods.filter((x) => x.phase !== 'exited' && x.phase !== 'stopping');

/** Submits a job every `everyMs` until `stop()`; returns the ids. */
function submitLoop(endpointId: string, everyMs: number, input: Record<string, unknown>) {
  const ids: string[] = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const r = await call(p.url, 'POST', `/v2/${endpointId}/run`, { body: { input } });
      expect(r.status).toBe(200);
      ids.push(r.body.id);
      await sleep(everyMs);
    }
  })();
  return {
    ids,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

/** Records, every 20 ms, the most outdated pods draining at once and the most processes alive. */
function watchPool(endpointId: string, oldVersion: number) {
  const seen = { drainingOld: 0, alive: 0 };
  const t = setInterval(() => {
    const pods = serving(p.pool.podsOf(endpointId));
    seen.drainingOld = Math.max(seen.drainingOld, pods.filter((x) => x.draining && x.version <= oldVersion).length);
    seen.alive = Math.max(seen.alive, pods.length);
  }, 20);
  return { seen, stop: () => clearInterval(t) };
}

describe('rolling release on a template update', () => {
  it('loses and fails no job, replaces workers one by one, and new workers run the new command', async () => {
    const templateId = await restTemplate(p.url, 'rr-tpl', taggedCommand('v1'));
    const e = await gqlEndpoint(
      p.url,
      `name: "rr", gpuIds: "AMPERE_16", templateId: "${templateId}", workersMin: 2, workersMax: 3, scalerType: "REQUEST_COUNT", scalerValue: 2, idleTimeout: 30`,
    );
    await eventually(() => serving(p.pool.podsOf(e.id)).filter((x) => x.phase === 'ready').length === 2, 60_000);

    const load = submitLoop(e.id, 60, { ms: 150 });
    await sleep(1000);
    // A long job on an old worker: the worker drained for the release must finish it first.
    const long = await call(p.url, 'POST', `/v2/${e.id}/run`, { body: { input: { ms: 2500 } } });
    await waitForStatus(p.url, e.id, long.body.id, ['IN_PROGRESS'], 60_000);
    const watch = watchPool(e.id, 1);
    const upd = await call(p.url, 'POST', `/v1/templates/${templateId}/update`, {
      body: { dockerStartCmd: taggedCommand('v2') },
    });
    expect(upd.status).toBe(200);
    expect(upd.body.dockerStartCmd).toEqual(taggedCommand('v2'));

    // The release is done when every serving worker is of version 2 and no old one is left.
    await eventually(() => {
      const pods = serving(p.pool.podsOf(e.id));
      return pods.length >= 2 && pods.every((x) => x.version === 2);
    }, 60_000);
    // A few more jobs submitted once it is done (counted, not timed: a loaded machine submits fewer per second).
    const afterRelease = load.ids.length;
    await eventually(() => load.ids.length >= afterRelease + 5, 60_000);
    await load.stop();
    watch.stop();

    const records = await Promise.all(
      [...load.ids, long.body.id].map((id) =>
        waitForStatus(p.url, e.id, id, ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'], 60_000),
      ),
    );
    const bad = records.filter((r) => r.status !== 'COMPLETED');
    expect(bad).toEqual([]);
    expect(records.length).toBeGreaterThan(20);
    const longRecord = records[records.length - 1];
    expect(longRecord.output.tag).toBe('v1');
    expect(p.pool.pod(longRecord.workerId)?.version).toBe(1);

    // Each job's tag matches the release of the worker that ran it, and both releases served.
    const tags = new Set(records.map((r) => r.output.tag));
    expect(tags).toEqual(new Set(['v1', 'v2']));
    for (const r of records) expect(p.pool.pod(r.workerId)?.version, `job ${r.id}`).toBe(r.output.tag === 'v1' ? 1 : 2);
    // Jobs submitted after the release ran on the new command.
    expect(records.slice(afterRelease, load.ids.length).every((r) => r.output.tag === 'v2')).toBe(true);

    // One by one: never two old workers draining at once. (That one drained is proven above: the long job ran to its
    // end on its v1 worker while v2 took the rest; a 20 ms sampler starved on a loaded machine can miss a quick drain.)
    expect(watch.seen.drainingOld).toBeLessThanOrEqual(1);
    expect(watch.seen.alive).toBeLessThanOrEqual(3 + 1);

    const listed = await gql(p.url, '{ myself { endpoints { id version pods { id slsVersion desiredStatus } } } }');
    const view = listed.body.data.myself.endpoints.find((x: any) => x.id === e.id);
    expect(view.version).toBe(2);
    const running = view.pods.filter((x: any) => x.desiredStatus === 'RUNNING');
    expect(running.length).toBeGreaterThanOrEqual(2);
    expect(running.every((x: any) => x.slsVersion === 2)).toBe(true);
    const pod = Pod.parse(
      (await call(p.url, 'GET', `/v1/pods/${running[0].id}?includeWorkers=true&includeTemplate=true`)).body,
    );
    expect(pod.slsVersion).toBe(2);
    expect(pod.dockerStartCmd.at(-1)).toBe('v2');
    expect(pod.template!.dockerStartCmd.at(-1)).toBe('v2');
    await gql(p.url, `mutation { saveEndpoint(input: { id: "${e.id}", workersMin: 0, workersMax: 0 }) { id } }`);
  });

  it('a release whose new command crashes stalls with the old workers serving, and a fixed update completes it', async () => {
    const templateId = await restTemplate(p.url, 'rr-broken', taggedCommand('v1'));
    const e = await gqlEndpoint(
      p.url,
      `name: "rr-broken", gpuIds: "AMPERE_16", templateId: "${templateId}", workersMin: 2, workersMax: 2, scalerType: "REQUEST_COUNT", scalerValue: 1`,
    );
    await eventually(() => serving(p.pool.podsOf(e.id)).filter((x) => x.phase === 'ready').length === 2, 60_000);

    await call(p.url, 'POST', `/v1/templates/${templateId}/update`, {
      body: { dockerStartCmd: [process.execPath, '-e', 'process.exit(3)'] },
    });
    // The release tried: a worker of the new command started and crashed.
    await eventually(() => p.pool.podsOf(e.id).some((x) => x.version === 2 && x.crashed), 60_000);
    const during = serving(p.pool.podsOf(e.id));
    // One old worker was retired for the release; the other stays because its replacement never came up.
    expect(during.filter((x) => x.version === 1 && !x.draining)).toHaveLength(1);
    const jobs = await Promise.all(
      [1, 2, 3].map(() => call(p.url, 'POST', `/v2/${e.id}/runsync`, { body: { input: { ms: 10 } } })),
    );
    expect(jobs.map((j) => [j.body.status, j.body.output?.tag])).toEqual([
      ['COMPLETED', 'v1'],
      ['COMPLETED', 'v1'],
      ['COMPLETED', 'v1'],
    ]);

    await call(p.url, 'POST', `/v1/templates/${templateId}/update`, { body: { dockerStartCmd: taggedCommand('v3') } });
    await eventually(() => {
      const pods = serving(p.pool.podsOf(e.id));
      return pods.length === 2 && pods.every((x) => x.version === 3 && x.phase === 'ready');
    }, 60_000);
    const after = await call(p.url, 'POST', `/v2/${e.id}/runsync`, { body: { input: {} } });
    expect(after.body.output.tag).toBe('v3');
    await gql(p.url, `mutation { saveEndpoint(input: { id: "${e.id}", workersMin: 0, workersMax: 0 }) { id } }`);
  });

  it('a job submitted just as an idle worker is drained waits for the new release instead of going to the dying worker', async () => {
    const templateId = await restTemplate(p.url, 'rr-race', taggedCommand('v1'));
    const e = await gqlEndpoint(
      p.url,
      `name: "rr-race", gpuIds: "AMPERE_16", templateId: "${templateId}", workersMin: 1, workersMax: 1`,
    );
    for (let round = 2; round <= 4; round++) {
      // The old worker is idle in its job-take long-poll when the release drains it.
      await eventually(() => p.pool.podsOf(e.id).some((x) => x.phase === 'ready' && x.version === round - 1), 60_000);
      await sleep(100);
      await call(p.url, 'POST', `/v1/templates/${templateId}/update`, {
        body: { dockerStartCmd: taggedCommand(`v${round}`) },
      });
      const run = await call(p.url, 'POST', `/v2/${e.id}/run`, { body: { input: {} } });
      const rec = await waitForStatus(p.url, e.id, run.body.id, ['COMPLETED', 'FAILED'], 60_000);
      expect(rec.status, JSON.stringify(rec)).toBe('COMPLETED');
      expect(rec.output.tag).toBe(`v${round}`);
    }
    await gql(p.url, `mutation { saveEndpoint(input: { id: "${e.id}", workersMin: 0, workersMax: 0 }) { id } }`);
  });
});
