import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/platform';
import { orchestratorStack } from '../helpers/orchestrator';

type Stack = Awaited<ReturnType<typeof orchestratorStack>>;

describe('job workflow: happy paths (real Temporal dev server, platform, workers)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await orchestratorStack();
  });
  afterAll(() => s.dispose());

  it('webhook mode: completes with the output, times and one attempt', async () => {
    const id = await s.sluice.start({ endpointId: s.platform.examples.echo!.id, input: { hello: 'temporal' } });
    const r = await s.sluice.result(id);
    expect(r.status).toBe('COMPLETED');
    expect(r.output).toEqual({ hello: 'temporal' });
    expect(r.attempts).toHaveLength(1);
    expect(r.attempts[0]).toMatchObject({ number: 1, how: 'submit', status: 'COMPLETED' });
    expect(r.executionTime).toBeGreaterThanOrEqual(0);
    // The webhook, not the fallback poll, completed the wait; and the history stays small.
    const jobs = await s.daemon.metrics.registry.getSingleMetric('sluice_remote_jobs_total')!.get();
    expect(
      jobs.values.find((v) => v.labels.via === 'webhook' && v.labels.status === 'COMPLETED')?.value,
    ).toBeGreaterThanOrEqual(1);
    const history = await s.env.client.workflow.getHandle(id).fetchHistory();
    expect(history.events!.length).toBeLessThanOrEqual(25);
  });

  it('a short job submitted with /runsync needs no wait activity', async () => {
    const id = await s.sluice.start({
      endpointId: s.platform.examples.echo!.id,
      input: { quick: true },
      options: { syncWaitMs: 5000 },
    });
    const r = await s.sluice.result(id);
    expect(r).toMatchObject({ status: 'COMPLETED', output: { quick: true } });
    const history = await s.env.client.workflow.getHandle(id).fetchHistory();
    expect(history.events!.length).toBeLessThanOrEqual(11);
  });

  it('the daemon serves health, readiness and Prometheus metrics', async () => {
    const get = async (path: string) => {
      const res = await fetch(`${s.daemon.url}${path}`);
      return { status: res.status, text: await res.text() };
    };
    expect((await get('/healthz')).status).toBe(200);
    expect((await get('/readyz')).status).toBe(200);
    const m = await get('/metrics');
    expect(m.text).toMatch(/sluice_http_calls_total\{operation="run",outcome="ok"\} \d+/);
    expect(m.text).toMatch(/sluice_remote_jobs_total/);
    expect((await fetch(`${s.daemon.url}/hooks/x/1/forged`, { method: 'POST', body: '{}' })).status).toBe(410);
    expect((await fetch(`${s.daemon.url}/hooks/v2/x/forged`, { method: 'POST', body: '{}' })).status).toBe(403);
    // A record nested deeper than the platform's JSON limit is refused, not handed on to Temporal.
    const run = { workflowId: 'wf-deep', runId: 'run-deep' };
    const hook = new URL(s.daemon.hub.webhookUrl(run, 'ep', 1, 1000)).pathname;
    const deep = `{"id": "j", "status": "COMPLETED", "output": ${'['.repeat(5000)}1${']'.repeat(5000)}}`;
    const refused = await fetch(`${s.daemon.url}${hook}`, { method: 'POST', body: deep });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/more than 256 levels deep/);
  });

  it('polling mode: completes too', async () => {
    const id = await s.sluice.start({
      endpointId: s.platform.examples.sleep!.id,
      input: { ms: 1200 },
      options: { completion: 'poll', polling: { initialIntervalMs: 200 } },
    });
    const r = await s.sluice.result(id);
    expect(r).toMatchObject({ status: 'COMPLETED', output: { slept: 1200 } });
  });

  it('a daemon that shuts down hands its webhook waits over at once (not after the heartbeat timeout)', async () => {
    const id = await s.sluice.start({ endpointId: s.platform.examples.sleep!.id, input: { ms: 6000 } });
    const handle = s.env.client.workflow.getHandle(id);
    await eventually(
      async () =>
        (await handle.describe()).raw.pendingActivities?.[0]?.activityType?.name === 'awaitCompletion' &&
        s.daemon.hub.waiting === 1,
    );
    const started = Date.now();
    await s.restartDaemon();
    // Well before the 30 s heartbeat timeout that would otherwise retry it (the margin absorbs a loaded machine).
    await eventually(async () => ((await handle.describe()).raw.pendingActivities?.[0]?.attempt ?? 0) >= 2, 25_000);
    expect(Date.now() - started).toBeLessThan(25_000);
    const r = await s.sluice.result(id);
    expect(r).toMatchObject({ status: 'COMPLETED', output: { slept: 6000 } });
    expect(r.attempts).toHaveLength(1);
  });
});
