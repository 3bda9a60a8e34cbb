import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdjustableClock } from '../../platform';
import { failureType } from '../../client/failures';
import { addEndpoint, call, eventually } from '../helpers/platform';
import { orchestratorStack } from '../helpers/orchestrator';

type Stack = Awaited<ReturnType<typeof orchestratorStack>>;

describe('job workflow: cancellation, ttl expiry, streaming', () => {
  let s: Stack;
  const clock = new AdjustableClock();
  let parked: string;
  beforeAll(async () => {
    s = await orchestratorStack({ platform: { clock } });
    parked = addEndpoint(s.platform, { name: 'parked', command: ['false'], workersMax: 0 }).id;
  });
  afterAll(() => s.dispose());

  const remoteIdOf = (workflowId: string) =>
    eventually(async () => (await s.sluice.state(workflowId)).state?.remoteJobId);
  const failureOf = async (workflowId: string) => {
    const err = await s.sluice.result(workflowId).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    return err;
  };

  it('cancel while queued: the remote job is cancelled and the workflow ends CANCELLED', async () => {
    const id = await s.sluice.start({ endpointId: parked, input: { q: 1 } });
    const remote = (await remoteIdOf(id))!;
    await s.sluice.cancel(id);
    expect(failureType(await failureOf(id))).toBe('CANCELLED');
    expect((await s.sluice.state(id)).workflowStatus).toBe('CANCELLED');
    const st = await call(s.platform.url, 'GET', `/v2/${parked}/status/${remote}`);
    expect(st.body.status).toBe('CANCELLED');
  });

  it('cancel while running: the remote job is cancelled and the worker stops it', async () => {
    const ep = s.platform.examples.sleep!.id;
    const id = await s.sluice.start({ endpointId: ep, input: { ms: 60_000 } });
    const remote = (await remoteIdOf(id))!;
    await eventually(
      async () => (await call(s.platform.url, 'GET', `/v2/${ep}/status/${remote}`)).body.status === 'IN_PROGRESS',
    );
    await s.sluice.cancel(id);
    expect(failureType(await failureOf(id))).toBe('CANCELLED');
    expect((await call(s.platform.url, 'GET', `/v2/${ep}/status/${remote}`)).body.status).toBe('CANCELLED');
    await eventually(
      async () => (await call(s.platform.url, 'GET', `/v2/${ep}/health`)).body.workers.running === 0,
      10_000,
    );
  });

  for (const completion of ['webhook', 'poll'] as const) {
    it(`ttl expiry ends the workflow with JOB_EXPIRED (${completion} mode)`, async () => {
      const id = await s.sluice.start({
        endpointId: parked,
        input: {},
        policy: { ttl: 10_000 },
        options: { completion, polling: { initialIntervalMs: 200, maxIntervalMs: 500 } },
      });
      const remote = (await remoteIdOf(id))!;
      clock.advance(11_000);
      s.platform.sweep();
      expect((await call(s.platform.url, 'GET', `/v2/${parked}/status/${remote}`)).status).toBe(404);
      const err = await failureOf(id);
      expect(failureType(err)).toBe('JOB_EXPIRED');
    });
  }

  it('a job on an unknown endpoint fails fast with ENDPOINT_NOT_FOUND', async () => {
    const id = await s.sluice.start({ endpointId: 'nosuchendpoint', input: {} });
    expect(failureType(await failureOf(id))).toBe('ENDPOINT_NOT_FOUND');
  });

  it('streaming: every chunk lands in the results store once, in order', async () => {
    const id = await s.sluice.start({
      endpointId: s.platform.examples.stream!.id,
      input: { chunks: 150, delayMs: 5 },
      options: { stream: true },
    });
    const followed: unknown[] = [];
    for await (const c of s.sluice.follow(id, 50)) followed.push(c);
    const r = await s.sluice.result(id);
    expect(r.status).toBe('COMPLETED');
    expect(r.streamChunks).toBe(150);
    const chunks = (await s.sluice.chunks(r.streamRef)) as { output: { index: number } }[];
    expect(chunks.map((c) => c.output.index)).toEqual(Array.from({ length: 150 }, (_, i) => i));
    expect(followed).toEqual(chunks);
  });

  it('a big output goes to the results store, not into history', async () => {
    const blob = 'x'.repeat(200_000);
    const id = await s.sluice.start({ endpointId: s.platform.examples.echo!.id, input: { blob } });
    const r = await s.sluice.result(id);
    expect(r.output).toBeUndefined();
    expect(r.outputRef!.bytes).toBeGreaterThan(200_000);
    expect(await s.sluice.output(r)).toEqual({ blob });
  });
});
