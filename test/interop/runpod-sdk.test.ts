/**
 * Interop: the official npm client `runpod-sdk` (1.1.2), unchanged, against the local platform.
 * Only the base URL differs from production use.
 */
import runpodSdk from 'runpod-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addEndpoint, call, eventually, exampleCommand, testPlatform } from '../helpers/platform';

type TestPlatform = Awaited<ReturnType<typeof testPlatform>>;
type SdkEndpoint = NonNullable<ReturnType<ReturnType<typeof runpodSdk>['endpoint']>>;

const TERMINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];

let platform: TestPlatform;
let sdk: ReturnType<typeof runpodSdk>;

const endpoint = (id: string | undefined): SdkEndpoint => {
  if (!id) throw new Error('example endpoint missing (seedExamples disabled?)');
  const ep = sdk.endpoint(id);
  if (!ep) throw new Error('runpod-sdk returned no endpoint');
  return ep;
};

beforeAll(async () => {
  platform = await testPlatform();
  sdk = runpodSdk(platform.apiKey, { baseUrl: `${platform.url}/v2` });
});

afterAll(async () => {
  vi.restoreAllMocks();
  await platform?.dispose();
});

describe('runpod-sdk (npm) against the platform', () => {
  it('run + status: polls until COMPLETED with the handler output', async () => {
    const ep = endpoint(platform.examples.echo?.id);
    const input = { text: 'héllo wörld ✓', n: 42, nested: { list: [1, 2, 3], none: null } };

    const submitted = await ep.run({ input });
    expect(submitted.status).toBe('IN_QUEUE');
    expect(typeof submitted.id).toBe('string');
    expect(submitted.id.length).toBeGreaterThan(0);

    const done: any = await eventually(async () => {
      const s: any = await ep.status(submitted.id);
      expect(s.id).toBe(submitted.id);
      expect(s.started).toBe(true);
      return TERMINAL.includes(s.status) ? s : undefined;
    }, 30_000);
    expect(done.status).toBe('COMPLETED');
    expect(done.completed).toBe(true);
    expect(done.succeeded).toBe(true);
    expect(done.output).toEqual(input);
    expect(done.delayTime).toBeGreaterThanOrEqual(0);
    expect(done.executionTime).toBeGreaterThanOrEqual(0);
  });

  it('runSync: returns the completed record when the job fits in the wait', async () => {
    const ep = endpoint(platform.examples.echo?.id);
    const input = { sync: true, values: ['a', 'b'] };
    const r: any = await ep.runSync({ input }, 20_000);
    expect(r.status).toBe('COMPLETED');
    expect(r.completed).toBe(true);
    expect(r.succeeded).toBe(true);
    expect(r.output).toEqual(input);
    expect(typeof r.id).toBe('string');
  });

  it('cancel: a running job becomes CANCELLED and its worker is freed', async () => {
    const ep = endpoint(platform.examples.sleep?.id);
    const { id } = await ep.run({ input: { ms: 60_000 } });
    await eventually(async () => (await ep.status(id)).status === 'IN_PROGRESS', 30_000);

    const cancelled = await ep.cancel(id);
    expect(cancelled).toMatchObject({ id, status: 'CANCELLED' });
    const after: any = await ep.status(id);
    expect(after.status).toBe('CANCELLED');
    expect(after.completed).toBe(true);
    expect(after.succeeded).toBe(false);

    // The stop reached the worker: with one worker and concurrency 1, the next job only runs
    // if the handler of the cancelled one was really interrupted (it would sleep 60 s otherwise).
    expect(platform.pool.podsOf(ep.endpointId).filter((p) => p.phase === 'ready')).toHaveLength(1);
    const next: any = await ep.runSync({ input: { ms: 10 } }, 20_000);
    expect(next.status).toBe('COMPLETED');
    expect(next.output).toEqual({ slept: 10 });
    expect(next.workerId).toBe(after.workerId);
  });

  it('runSync: a job longer than the wait goes on through /status-sync and completes', async () => {
    const ep = endpoint(platform.examples.sleep?.id);
    // The SDK clamps every wait to 1000..90000 ms. With timeout 3000 the /runsync answer (after
    // 3 s) is still IN_PROGRESS for a 4 s job; the SDK then long-polls /status-sync/{id}
    // (waits >= 1 s) until the job is terminal or `timeout` passed since the runsync answer.
    // xior calls the global fetch at request time: a pass-through spy records the URLs.
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const started = Date.now();
    let r: any;
    let urls: string[] = [];
    try {
      r = await ep.runSync({ input: { ms: 4000 } }, 3000);
    } finally {
      urls = fetchSpy.mock.calls.map(([u]) => String(u instanceof Request ? u.url : u));
      fetchSpy.mockRestore();
    }
    const took = Date.now() - started;
    expect(r.status).toBe('COMPLETED');
    expect(r.completed).toBe(true);
    expect(r.succeeded).toBe(true);
    expect(r.output).toEqual({ slept: 4000 });
    expect(r.executionTime).toBeGreaterThanOrEqual(4000);
    expect(took).toBeGreaterThanOrEqual(4000);
    expect(urls[0]).toBe(`${platform.url}/v2/${ep.endpointId}/runsync?wait=3000`);
    const statusSyncs = urls.slice(1);
    expect(statusSyncs.length).toBeGreaterThanOrEqual(1);
    for (const u of statusSyncs) expect(u).toMatch(new RegExp(`/v2/${ep.endpointId}/status-sync/${r.id}\\?wait=\\d+$`));
  });

  it('stream: every chunk is delivered exactly once, in order, and the job completes', async () => {
    const ep = endpoint(platform.examples.stream?.id);
    const { id } = await ep.run({ input: { chunks: 5, delayMs: 150 } });

    const chunks: any[] = [];
    for await (const chunk of ep.stream(id)) chunks.push(chunk);

    // The SDK yields whole chunk objects; the handler's value is `chunk.output`.
    expect(chunks.map((c) => c.output)).toEqual([0, 1, 2, 3, 4].map((index) => ({ index, text: `chunk ${index}` })));
    const status = await ep.status(id);
    expect(status.status).toBe('COMPLETED');
    // Nothing is handed out twice: a further /stream read is empty.
    const again = await call(platform.url, 'GET', `/v2/${ep.endpointId}/stream/${id}`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'COMPLETED', stream: [] });
  });

  it('health: job counts follow the jobs, worker counts are consistent', async () => {
    const ep = endpoint(platform.examples.fail?.id);
    const before = await ep.health();
    for (const n of [...Object.values(before.jobs), before.workers.idle, before.workers.running]) {
      expect(Number.isInteger(n)).toBe(true);
      expect(n).toBeGreaterThanOrEqual(0);
    }

    const failed: any = await ep.runSync({ input: { message: 'sdk health probe' } }, 20_000);
    expect(failed.status).toBe('FAILED');
    expect(failed.succeeded).toBe(false);
    expect(JSON.stringify(failed.error)).toContain('sdk health probe');

    const after = await ep.health();
    expect(after.jobs.failed).toBe(before.jobs.failed + 1);
    expect(after.jobs.completed).toBe(before.jobs.completed);
    expect(after.jobs.inQueue).toBe(0);
    expect(after.jobs.inProgress).toBe(0);
    // The worker that ran the job is still there (idleTimeout 30 s) and not busy.
    expect(after.workers.running).toBe(0);
    expect(after.workers.idle).toBeGreaterThanOrEqual(1);
    expect(after.workers.idle + after.workers.running).toBe(
      platform.pool.podsOf(ep.endpointId).filter((p) => p.phase === 'ready').length,
    );
  });

  it('purgeQueue: removes every queued job of an endpoint without workers', async () => {
    const e = addEndpoint(platform, { name: 'sdk-purge', command: exampleCommand('echo'), workersMax: 0 });
    const ep = endpoint(e.id);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await ep.run({ input: { i } })).id);
    expect(new Set(ids).size).toBe(4);

    const queued = await ep.health();
    expect(queued.jobs.inQueue).toBe(4);
    expect(queued.workers.idle + queued.workers.running).toBe(0);

    const purged = await ep.purgeQueue();
    expect(purged).toEqual({ removed: 4, status: 'completed' });

    const after = await ep.health();
    expect(after.jobs.inQueue).toBe(0);
    for (const id of ids) {
      const s = await call(platform.url, 'GET', `/v2/${e.id}/status/${id}`);
      // Removed jobs are gone (404) or finished without a result; never queued, never completed.
      if (s.status !== 404) {
        expect(s.status).toBe(200);
        expect(['CANCELLED', 'FAILED']).toContain(s.body.status);
      }
    }
    // A second purge finds nothing.
    expect(await ep.purgeQueue()).toEqual({ removed: 0, status: 'completed' });
  });

  it('a wrong API key is refused with 401 (the SDK throws)', async () => {
    const bad = runpodSdk('not-the-key', { baseUrl: `${platform.url}/v2` }).endpoint(platform.examples.echo!.id)!;
    await expect(bad.health()).rejects.toMatchObject({ response: { status: 401 } });
  });
});
