/**
 * MinIO SIGKILLed mid-batch and started again on the same data dir and port, the batch's input,
 * outcome files and the daemon's results store all on it (`s3://`): every input ends exactly once
 * with its own output, and the platform counts exactly one remote job per input.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchClient } from '../../client/batch';
import { type BatchResultLine } from '../../contracts';
import { openResultsStore } from '../../results/store/open';
import { s3ClientFromEnv } from '../../results/store/s3-client';
import { orchestratorStack } from '../helpers/orchestrator';
import { eventually } from '../helpers/platform';
import { everyIndexOnce } from '../helpers/results-location';
import { startS3Server, type S3Server } from '../helpers/s3';
import { SLEEPERS as N, exampleEndpoint, expectEachSleeperOnce, sleeperLines, type Stack } from './helpers';

describe('a batch on s3:// through a restart of MinIO', () => {
  let s3: S3Server;
  let s: Stack;
  beforeAll(async () => {
    s3 = await startS3Server();
    s = await orchestratorStack({ results: { url: s3.url('results'), env: s3.env } });
  });
  afterAll(async () => {
    await s?.dispose();
    await s3?.stop();
  });

  it('MinIO SIGKILLed mid-batch and started again on its data: every input exactly once, one platform job each', async () => {
    const sleep = await exampleEndpoint(s, 'sleep', 6);
    const body = sleeperLines()
      .map((l) => `${JSON.stringify(l)}\n`)
      .join('');
    const client = s3ClientFromEnv(s3.env);
    try {
      await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'in/restart.jsonl', Body: body }));
    } finally {
      client.destroy();
    }
    const batch = new BatchClient({ client: s.env.client, resultsDir: s.resultsDir, resultsUrl: s.resultsUrl });
    const outDir = s3.url('out/restart/');
    const id = await batch.start({
      endpointId: sleep,
      source: s3.url('in/restart.jsonl'),
      outDir,
      options: { concurrency: 6, webhookFallbackMs: 1000 },
    });
    await eventually(async () => (await batch.state(id)).counts.done >= 20, 90_000);
    const before = await batch.state(id);
    await s3.kill();
    expect(before.counts.done, 'killed mid-batch').toBeLessThan(N);
    // Jobs finish at the platform meanwhile: their webhooks and the steps meet a store that refuses connections.
    await new Promise((r) => setTimeout(r, 4000));
    await s3.restart();

    const summary = await batch.result(id);
    expect(summary.counts.byStatus).toEqual({ COMPLETED: N });
    const out = openResultsStore(outDir, { env: s3.env });
    const results = everyIndexOnce(
      (await out.lines('results.jsonl').finally(() => out.close())) as BatchResultLine[],
      N,
    );
    expectEachSleeperOnce(s, sleep, results);
  }, 180_000);
});
