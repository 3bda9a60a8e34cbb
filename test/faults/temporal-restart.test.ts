/**
 * The Temporal dev server (SQLite file persistence) SIGKILLed mid-batch and started again on the
 * same file and port: the `sluice worker` process reconnects by itself, and the batch ends with
 * every input exactly once and exactly one remote job per input, as the platform counts them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchClient } from '../../client/batch';
import { hasExited } from '../../common/process';
import { inputFile, resultsOf } from '../batch/helpers';
import { daemonEnv } from '../helpers/orchestrator';
import { eventually, freePort, testPlatform } from '../helpers/platform';
import { SLEEPERS as N, exampleEndpoint, expectEachSleeperOnce, sleeperLines } from './helpers';
import { startSluice, startTemporalServer, type SluiceProcess, type TemporalServer } from '../helpers/servers';

describe('a batch through a restart of the Temporal server', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-temporal-restart-'));
  let temporal: TemporalServer;
  let platform: Awaited<ReturnType<typeof testPlatform>>;
  let daemon: SluiceProcess | undefined;
  let connection: Connection | undefined;

  beforeAll(async () => {
    temporal = await startTemporalServer(join(dataDir, 'temporal.sqlite'), await freePort());
    platform = await testPlatform();
  });
  afterAll(async () => {
    await connection?.close().catch(() => undefined);
    await daemon?.stop();
    await platform?.dispose();
    await temporal?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the server SIGKILLed mid-batch and started again: the daemon goes on by itself, every input exactly once', async () => {
    const sleep = await exampleEndpoint({ platform }, 'sleep', 6);
    const resultsDir = join(dataDir, 'results');
    daemon = await startSluice(
      ['worker'],
      { ...daemonEnv(platform, temporal.address, resultsDir), SLUICE_DAEMON_PORT: String(await freePort()) },
      /sluice worker running/,
    );
    connection = await Connection.connect({ address: temporal.address });
    const batch = new BatchClient({ client: new Client({ connection }), resultsDir });
    const { file, dir } = inputFile(sleeperLines());
    try {
      const id = await batch.start({
        endpointId: sleep,
        source: file,
        outDir: join(dir, 'out'),
        options: { concurrency: 6, webhookFallbackMs: 1000 },
      });
      await eventually(async () => (await batch.state(id)).counts.done >= 20, 90_000);
      const before = await batch.state(id);
      await temporal.kill();
      expect(before.counts.done, 'killed mid-batch').toBeLessThan(N);
      // Jobs in flight go on at the platform meanwhile; their webhooks reach the daemon while Temporal is down.
      await new Promise((r) => setTimeout(r, 3000));
      expect(hasExited(daemon.child), 'the daemon outlives its server').toBe(false);
      await temporal.restart();

      const summary = await batch.result(id);
      expect(summary.counts.byStatus).toEqual({ COMPLETED: N });
      const results = resultsOf(
        join(dir, 'out'),
        Array.from({ length: N }, (_, i) => i),
      );
      expectEachSleeperOnce({ platform }, sleep, results);
      expect(hasExited(daemon.child), 'the daemon ran on').toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
