/** `sluice worker` as a real process: configured by the environment, it serves /metrics with sluice's own names. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonEnv, temporalEnv } from '../helpers/orchestrator';
import { testPlatform } from '../helpers/platform';
import { cleanEnv, startSluice } from './run-sluice';

describe('sluice worker', () => {
  let temporal: TestWorkflowEnvironment;
  let platform: Awaited<ReturnType<typeof testPlatform>>;
  let worker: ReturnType<typeof startSluice>;
  const resultsDir = mkdtempSync(join(tmpdir(), 'sluice-worker-'));
  beforeAll(async () => {
    temporal = await temporalEnv();
    platform = await testPlatform();
    worker = startSluice(
      ['worker'],
      cleanEnv({ ...daemonEnv(platform, temporal.address, resultsDir), SLUICE_TASK_QUEUE: 'cli-worker-test' }),
    );
  });
  afterAll(async () => {
    await worker?.stop();
    await platform?.dispose();
    await temporal?.teardown();
    rmSync(resultsDir, { recursive: true, force: true });
  });

  it('serves /metrics: process metrics as sluice_process_* and sluice_nodejs_*, never sluice_process_process_*', async () => {
    const url = (await worker.waitFor(/metrics (http:\/\/\S+\/metrics)/))[1]!;
    const text = await (await fetch(url)).text();
    expect(text).toMatch(/^sluice_process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^sluice_process_resident_memory_bytes /m);
    expect(text).toMatch(/^sluice_nodejs_eventloop_lag_seconds /m);
    expect(text).toMatch(/^# TYPE sluice_http_calls_total counter/m);
    expect(text).not.toMatch(/sluice_process_process_|sluice_process_nodejs_/);
  });
});
