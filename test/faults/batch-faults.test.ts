/**
 * A batch through each fault of issue 19's table on the platform's seeded fault mode (and with
 * every webhook lost): every input ends exactly once with its own output, and the platform holds
 * exactly one remote job per input. No timing is asserted (bench/faults). The job workflow under
 * the same rows: job-faults.test.ts.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatchClient } from '../../client/batch';
import { inputFile, resultsOf } from '../batch/helpers';
import { echoEndpoint, faultyStack, platformJobsByInput, sharedTemporal, type Stack } from './helpers';
import { expectFaultsHappened, ROWS } from './rows';

const N = 48;

/** Every input once, its own output, one remote job each as the platform counts them, no key used twice. */
function expectExactlyOnce(s: Stack, endpointId: string, outDir: string): void {
  const results = resultsOf(
    outDir,
    Array.from({ length: N }, (_, i) => i),
  );
  for (const r of results.values()) {
    expect(r.status, `index ${r.index}`).toBe('COMPLETED');
    expect(r.output, `index ${r.index}`).toEqual({ i: r.index });
    expect(r.remoteJobIds, `index ${r.index}`).toHaveLength(1);
  }
  const { byInput, keyShared } = platformJobsByInput(s, endpointId);
  expect(keyShared).toBe(0);
  expect(byInput.size).toBe(N);
  for (const [i, jobs] of byInput) expect(jobs, `platform jobs of input ${i}`).toEqual(results.get(i)!.remoteJobIds);
}

describe('a batch under each fault: exactly once', () => {
  // One Temporal server for the file: each row's stack (platform, daemon) is its own, all its workflows ended.
  const temporal = sharedTemporal();
  it.each(ROWS)(
    '$name',
    async (row) => {
      const s = await faultyStack(row, temporal.env);
      const { file, dir } = inputFile(Array.from({ length: N }, (_, i) => ({ i })));
      try {
        const endpointId = await echoEndpoint(s);
        const batch = new BatchClient({ client: s.env.client, resultsDir: s.resultsDir, resultsUrl: s.resultsUrl });
        const outDir = join(dir, 'out');
        const id = await batch.start({ endpointId, source: file, outDir });
        const summary = await batch.result(id);
        expect(summary.counts.byStatus).toEqual({ COMPLETED: N });
        expectExactlyOnce(s, endpointId, outDir);
        await expectFaultsHappened(s, row);
      } finally {
        await s.dispose();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    150_000,
  );
});
