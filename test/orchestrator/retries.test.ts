import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdjustableClock } from '../../platform';
import { eventually } from '../helpers/platform';
import { orchestratorStack } from '../helpers/orchestrator';

type Stack = Awaited<ReturnType<typeof orchestratorStack>>;
const counter = () => join(mkdtempSync(join(tmpdir(), 'flaky-')), 'count');

describe('job workflow: retries of FAILED and TIMED_OUT jobs', () => {
  let s: Stack;
  const clock = new AdjustableClock();
  beforeAll(async () => {
    s = await orchestratorStack({ platform: { clock, retentionAsyncMs: 3000 } });
  });
  afterAll(() => s.dispose());

  it('a flaky handler that fails twice then succeeds is retried with /retry (same remote job)', async () => {
    const id = await s.sluice.start({
      endpointId: s.platform.examples.flaky!.id,
      input: { counterFile: counter(), failTimes: 2 },
      options: { retry: { maxAttempts: 3, initialBackoffMs: 100 }, resultRetentionMs: 30 * 60_000 },
    });
    const r = await s.sluice.result(id);
    expect(r.status).toBe('COMPLETED');
    expect(r.output).toEqual({ attempts: 3 });
    expect(r.attempts.map((a) => [a.how, a.status])).toEqual([
      ['submit', 'FAILED'],
      ['retry', 'FAILED'],
      ['retry', 'COMPLETED'],
    ]);
    expect(new Set(r.attempts.map((a) => a.remoteJobId)).size).toBe(1);
    expect(r.attempts[0]!.error).toMatch(/flaky failure: attempt 1 of 3/);
  });

  it('gives up after maxAttempts and returns the last failure with every attempt', async () => {
    const id = await s.sluice.start({
      endpointId: s.platform.examples.flaky!.id,
      input: { counterFile: counter(), failTimes: 5 },
      options: { retry: { maxAttempts: 2, initialBackoffMs: 100 } },
    });
    const r = await s.sluice.result(id);
    expect(r.status).toBe('FAILED');
    expect(r.attempts).toHaveLength(2);
    expect(r.error).toMatch(/attempt 2 of 6/);
  });

  it('a job that times out is retried and then succeeds', async () => {
    const ep = s.platform.examples.flaky!.id;
    const id = await s.sluice.start({
      endpointId: ep,
      input: { counterFile: counter(), failTimes: 1, mode: 'hang' },
      policy: { executionTimeout: 5000 },
      options: {
        retry: { initialBackoffMs: 100 },
        completion: 'poll',
        polling: { initialIntervalMs: 200, maxIntervalMs: 500 },
      },
    });
    await eventually(
      async () =>
        (await s.sluice.state(id)).state?.status === 'IN_QUEUE' && s.platform.engine.jobs.ofEndpoint(ep).length > 0,
    );
    // The platform's clock moves past the executionTimeout while the first attempt hangs.
    await eventually(() => s.platform.engine.jobs.ofEndpoint(ep).some((j) => j.status === 'IN_PROGRESS'));
    clock.advance(6000);
    s.platform.sweep();
    const r = await s.sluice.result(id);
    expect(r.attempts.map((a) => [a.how, a.status])).toEqual([
      ['submit', 'TIMED_OUT'],
      ['retry', 'COMPLETED'],
    ]);
    expect(r.output).toEqual({ attempts: 2 });
  });

  it('after the result expired on the service, the job is resubmitted with its original input', async () => {
    const id = await s.sluice.start({
      endpointId: s.platform.examples.flaky!.id,
      input: { counterFile: counter(), failTimes: 1 },
      // The workflow believes retention is long; the platform keeps results only 3 s, and the backoff waits 4 s.
      options: { retry: { initialBackoffMs: 4000 }, resultRetentionMs: 30 * 60_000 },
    });
    const r = await s.sluice.result(id);
    expect(r.status).toBe('COMPLETED');
    expect(r.attempts.map((a) => [a.how, a.status])).toEqual([
      ['submit', 'FAILED'],
      ['resubmit', 'COMPLETED'],
    ]);
    expect(r.attempts[0]!.remoteJobId).not.toBe(r.attempts[1]!.remoteJobId);
    expect(r.output).toEqual({ attempts: 2 });
  });
});
