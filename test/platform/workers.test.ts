import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addEndpoint, call, eventually, exampleCommand, testPlatform, waitForStatus } from '../helpers/platform';

type P = Awaited<ReturnType<typeof testPlatform>>;

describe('worker pods: real processes, scaling, crashes, idle timeout', () => {
  let p: P;
  beforeAll(async () => {
    p = await testPlatform();
  });
  afterAll(() => p.dispose());

  const livePids = (endpointId: string) =>
    p.pool.podsOf(endpointId).filter((x) => x.phase !== 'exited' && x.phase !== 'stopping');

  it('a burst raises workers up to workersMax and no further; idle workers stop after idleTimeout', async () => {
    const ep = addEndpoint(p, { name: 'burst', command: exampleCommand('sleep'), workersMax: 2, idleTimeout: 1 });
    let maxSeen = 0;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push((await call(p.url, 'POST', `/v2/${ep.id}/run`, { body: { input: { ms: 400 } } })).body.id);
    const watch = setInterval(() => (maxSeen = Math.max(maxSeen, livePids(ep.id).length)), 20);
    try {
      for (const id of ids) await waitForStatus(p.url, ep.id, id, ['COMPLETED'], 30_000);
    } finally {
      clearInterval(watch);
    }
    expect(maxSeen).toBe(2);
    const h = await call(p.url, 'GET', `/v2/${ep.id}/health`);
    expect(h.body.jobs.completed).toBe(6);
    await eventually(() => livePids(ep.id).length === 0, 15_000);
  });

  it('workersMin workers start without jobs and stay warm past idleTimeout', async () => {
    const ep = addEndpoint(p, {
      name: 'warm',
      command: exampleCommand('echo'),
      workersMin: 1,
      workersMax: 2,
      idleTimeout: 1,
    });
    await eventually(async () => (await call(p.url, 'GET', `/v2/${ep.id}/health`)).body.workers.idle === 1, 15_000);
    await new Promise((r) => setTimeout(r, 2000));
    const h = await call(p.url, 'GET', `/v2/${ep.id}/health`);
    expect(h.body.workers.idle).toBe(1);
    expect(livePids(ep.id)).toHaveLength(1);
  });

  it('lowPriority jobs never trigger scaling', async () => {
    const ep = addEndpoint(p, { name: 'lowprio', command: exampleCommand('echo'), workersMax: 2 });
    const r = await call(p.url, 'POST', `/v2/${ep.id}/run`, { body: { input: {}, policy: { lowPriority: true } } });
    await new Promise((res) => setTimeout(res, 1000));
    expect(p.pool.podsOf(ep.id)).toHaveLength(0);
    // A normal job scales the endpoint up, and the waiting low-priority job runs on that worker too.
    await call(p.url, 'POST', `/v2/${ep.id}/run`, { body: { input: {} } });
    await waitForStatus(p.url, ep.id, r.body.id, ['COMPLETED'], 20_000);
  });

  it('a crashed worker fails its job with the reason and is replaced', async () => {
    const ep = addEndpoint(p, { name: 'crashy', command: exampleCommand('sleep'), workersMin: 1, workersMax: 1 });
    const run = await call(p.url, 'POST', `/v2/${ep.id}/run`, { body: { input: { ms: 30_000 } } });
    await waitForStatus(p.url, ep.id, run.body.id, ['IN_PROGRESS']);
    const victim = livePids(ep.id)[0]!;
    process.kill(victim.proc!.pid!, 'SIGKILL');
    const failed = await waitForStatus(p.url, ep.id, run.body.id, ['FAILED']);
    expect(failed.error).toMatch(/exited \(code null, signal SIGKILL\)/);
    await eventually(() => livePids(ep.id).some((x) => x.id !== victim.id), 15_000);
    const next = await call(p.url, 'POST', `/v2/${ep.id}/runsync`, { body: { input: { ms: 10 } } });
    expect(next.body.status).toBe('COMPLETED');
  });

  it('worker routes refuse a wrong worker key and an unknown pod', async () => {
    const ep = p.examples.echo!.id;
    const r1 = await call(p.url, 'GET', `/v2/${ep}/job-take/nosuchpod?gpu=x&job_in_progress=0`, {
      key: null,
      headers: { authorization: 'x' },
    });
    expect(r1.status).toBe(404);
    await call(p.url, 'POST', `/v2/${ep}/runsync`, { body: { input: {} } });
    const pod = p.pool.podsOf(ep).find((x) => x.phase === 'ready')!;
    const r2 = await call(p.url, 'GET', `/v2/${ep}/job-take/${pod.id}?job_in_progress=0`, {
      key: null,
      headers: { authorization: 'wrong' },
    });
    expect(r2.status).toBe(401);
    // The user's own API key is not a worker key either.
    const r3 = await call(p.url, 'GET', `/v2/${ep}/job-stop/${pod.id}`);
    expect(r3.status).toBe(401);
  });
});
