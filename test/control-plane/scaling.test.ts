/**
 * The platform's autoscaler, driven through the GraphQL settings of an endpoint: workersMax
 * caps a burst, idle workers stop after idleTimeout, workersMin stays warm, both scaler types,
 * FlashBoot's shorter cold start, lowPriority jobs, and the /health worker counts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WorkerPod } from '../../platform/pods/pod';
import { call, eventually, testPlatform, waitForStatus } from '../helpers/platform';
import { gqlEndpoint, health, healthUntil, restTemplate, taggedCommand } from './support';

type P = Awaited<ReturnType<typeof testPlatform>>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const live = (pods: WorkerPod[]) => pods.filter((x) => x.phase !== 'exited' && x.phase !== 'stopping');

/** Runs `fn` while sampling the endpoint's live pods and `/health` running count; returns the maxima. */
async function peak(p: P, endpointId: string, fn: () => Promise<void>): Promise<{ pods: number; running: number }> {
  const seen = { pods: 0, running: 0 };
  const t = setInterval(() => (seen.pods = Math.max(seen.pods, live(p.pool.podsOf(endpointId)).length)), 10);
  let polling = true;
  const poll = (async () => {
    while (polling) {
      seen.running = Math.max(seen.running, (await health(p.url, endpointId)).workers.running);
      await sleep(25);
    }
  })();
  try {
    await fn();
  } finally {
    clearInterval(t);
    polling = false;
    await poll;
  }
  return seen;
}

async function runAll(
  p: P,
  endpointId: string,
  n: number,
  input: Record<string, unknown>,
  policy?: Record<string, unknown>,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push(
      (await call(p.url, 'POST', `/v2/${endpointId}/run`, { body: { input, ...(policy ? { policy } : {}) } })).body.id,
    );
  return ids;
}

describe('autoscaler (cold start 0)', () => {
  let p: P;
  let templateId: string;
  beforeAll(async () => {
    p = await testPlatform({ seedExamples: false });
    templateId = await restTemplate(p.url, 'scale-tpl', taggedCommand('s'));
  });
  afterAll(() => p.dispose());

  it('a burst raises running workers up to workersMax and no further; idle workers stop after idleTimeout', async () => {
    const e = await gqlEndpoint(
      p.url,
      `name: "burst", gpuIds: "AMPERE_16", templateId: "${templateId}", scalerType: "REQUEST_COUNT", scalerValue: 1, workersMin: 0, workersMax: 3, idleTimeout: 2`,
    );
    const seen = await peak(p, e.id, async () => {
      const ids = await runAll(p, e.id, 12, { ms: 300 });
      for (const id of ids) expect((await waitForStatus(p.url, e.id, id, ['COMPLETED'], 60_000)).output.tag).toBe('s');
    });
    expect(seen).toEqual({ pods: 3, running: 3 });
    const h = await health(p.url, e.id);
    expect(Object.keys(h.workers).sort()).toEqual([
      'idle',
      'initializing',
      'ready',
      'running',
      'throttled',
      'unhealthy',
    ]);
    expect(h.jobs.completed).toBe(12);
    await eventually(() => p.pool.podsOf(e.id).every((x) => x.exit !== undefined), 60_000, 20);
    // Each stopped after idleTimeout (2 s) of holding no job, in the platform's own record of the pod.
    for (const pod of p.pool.podsOf(e.id)) expect(pod.exit!.at - pod.idleSince).toBeGreaterThanOrEqual(2000);
  });

  it('workersMin workers start without jobs and stay warm past idleTimeout', async () => {
    const e = await gqlEndpoint(
      p.url,
      `name: "warm", gpuIds: "AMPERE_16", templateId: "${templateId}", workersMin: 2, workersMax: 3, idleTimeout: 1`,
    );
    await healthUntil(p.url, e.id, (h) => h.workers.idle === 2 && h.workers.ready === 2, 60_000);
    await runAll(p, e.id, 1, {});
    await sleep(2000);
    const h = await health(p.url, e.id);
    expect(h.workers).toMatchObject({ idle: 2, ready: 2, running: 0, initializing: 0, throttled: 0 });
    expect(live(p.pool.podsOf(e.id))).toHaveLength(2);
  });

  it('REQUEST_COUNT targets ceil((inQueue + inProgress) / scalerValue) workers', async () => {
    const e = await gqlEndpoint(
      p.url,
      `name: "reqcount", gpuIds: "AMPERE_16", templateId: "${templateId}", scalerType: "REQUEST_COUNT", scalerValue: 3, workersMax: 5, idleTimeout: 1`,
    );
    const seen = await peak(p, e.id, async () => {
      const ids = await runAll(p, e.id, 7, { ms: 600 });
      for (const id of ids) await waitForStatus(p.url, e.id, id, ['COMPLETED'], 60_000);
    });
    expect(seen.pods).toBe(3);
  });

  it('QUEUE_DELAY starts one worker at once and more only once a job waited scalerValue seconds', async () => {
    const e = await gqlEndpoint(
      p.url,
      `name: "qdelay", gpuIds: "AMPERE_16", templateId: "${templateId}", scalerType: "QUEUE_DELAY", scalerValue: 1, workersMax: 3, idleTimeout: 1`,
    );
    const t0 = Date.now();
    const ids = await runAll(p, e.id, 6, { ms: 1500 });
    await eventually(() => live(p.pool.podsOf(e.id)).length === 3, 60_000, 20);
    const created = p.pool
      .podsOf(e.id)
      .map((x) => x.createdAt - t0)
      .sort((a, b) => a - b);
    // The first without waiting for the delay; the others only once a job waited it (t0 is before any was queued).
    expect(created[0]).toBeLessThan(1000);
    expect(created[1]).toBeGreaterThanOrEqual(1000);
    for (const id of ids) await waitForStatus(p.url, e.id, id, ['COMPLETED'], 60_000);
  });

  it('lowPriority jobs never start a worker; they run on workers that exist', async () => {
    const e = await gqlEndpoint(
      p.url,
      `name: "lowprio", gpuIds: "AMPERE_16", templateId: "${templateId}", scalerType: "REQUEST_COUNT", scalerValue: 1, workersMax: 2, idleTimeout: 1`,
    );
    const [low] = await runAll(p, e.id, 1, {}, { lowPriority: true });
    await sleep(1000);
    expect(p.pool.podsOf(e.id)).toHaveLength(0);
    expect((await health(p.url, e.id)).jobs.inQueue).toBe(1);
    await runAll(p, e.id, 1, {});
    await waitForStatus(p.url, e.id, low!, ['COMPLETED'], 60_000);
  });
});

describe('simulated cold start', () => {
  let p: P;
  beforeAll(async () => {
    // A cold start long enough that /health is read during it on a loaded machine too.
    p = await testPlatform({ seedExamples: false, pods: { coldStartMs: 3000, flashBootColdStartMs: 100 } });
  });
  afterAll(() => p.dispose());

  it('FLASHBOOT shortens the cold start; /health counts the worker as initializing meanwhile', async () => {
    const templateId = await restTemplate(p.url, 'cold-tpl', taggedCommand('c'));
    const plain = await gqlEndpoint(
      p.url,
      `name: "cold", gpuIds: "AMPERE_16", templateId: "${templateId}", workersMin: 1, workersMax: 1`,
    );
    const fb = await gqlEndpoint(
      p.url,
      `name: "flash", gpuIds: "AMPERE_16", templateId: "${templateId}", workersMin: 1, workersMax: 1, flashBootType: FLASHBOOT`,
    );
    const starting = await healthUntil(p.url, plain.id, (h) => h.workers.initializing === 1, 60_000);
    expect(starting.workers).toMatchObject({ initializing: 1, idle: 0, running: 0 });
    const ready = async (id: string) => {
      await healthUntil(p.url, id, (h) => h.workers.idle === 1, 60_000);
      const pod = p.pool.podsOf(id)[0]!;
      return pod.startedAt! - pod.createdAt;
    };
    const [coldMs, flashMs] = await Promise.all([ready(plain.id), ready(fb.id)]);
    expect(coldMs).toBeGreaterThanOrEqual(3000);
    expect(flashMs).toBeLessThan(3000);
  });
});
