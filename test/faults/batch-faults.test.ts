/**
 * A batch, and the job workflow, through each fault of issue 19's table on the platform's seeded
 * fault mode (and with every webhook lost): every input ends exactly once with its own output, and
 * the platform holds exactly one remote job per input. No timing is asserted (bench/faults).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatchClient } from '../../client/batch';
import { type FaultsInput } from '../../platform';
import { inputFile, resultsOf } from '../batch/helpers';
import {
  daemonCounter,
  echoEndpoint,
  faultyStack,
  platformJobsByInput,
  type FaultCase,
  type FaultyStack,
  type Stack,
} from './helpers';

const N = 48;
const SEED = 19;
const ALL: FaultsInput = {
  seed: SEED,
  rateLimited: 0.03,
  badGateway: 0.05,
  resetBefore: 0.03,
  resetAfter: 0.05,
  delay: 0.05,
  webhookLost: 0.08,
  webhookDuplicate: 0.08,
  webhookDelay: 0.08,
  webhookReset: 0.04,
};

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

/** A row: its faults, and the fault kinds the platform must have applied (so the row cannot pass fault-free). */
interface Row extends FaultCase {
  name: string;
  kinds: string[];
}

const ROWS: Row[] = [
  { name: '429s with Retry-After 1', faults: { seed: SEED, rateLimited: 0.05, retryAfterSeconds: 1 }, kinds: ['429'] },
  { name: 'every webhook lost (public URL unreachable)', unreachable: true, kinds: [] },
  { name: "8 % of jobs' webhooks lost", faults: { seed: SEED, webhookLost: 0.08 }, kinds: ['webhook-lost'] },
  {
    name: '4 % of calls answered 1 to 4 s late',
    faults: { seed: SEED, delay: 0.04, delayMs: [1000, 4000] },
    kinds: ['delay'],
  },
  {
    name: '502s and resets before the answer',
    faults: { seed: SEED, badGateway: 0.05, resetBefore: 0.03 },
    kinds: ['502', 'reset-before'],
  },
  { name: 'resets after the service answered', faults: { seed: SEED, resetAfter: 0.05 }, kinds: ['reset-after'] },
  {
    name: 'webhooks duplicated, delayed, reset after delivery',
    faults: { seed: SEED, webhookDuplicate: 0.08, webhookDelay: 0.08, webhookReset: 0.04 },
    kinds: ['webhook-duplicate', 'webhook-delay', 'webhook-reset'],
  },
  { name: 'all faults together', faults: ALL, kinds: ['429', '502', 'reset-after', 'delay', 'webhook-lost'] },
];

/** The row's faults did happen: each kind applied by the platform; with no public URL, no webhook received. */
async function expectFaultsHappened(s: FaultyStack, row: Row): Promise<void> {
  for (const k of row.kinds) expect(s.log.faults[k] ?? 0, `platform faults "${k}"`).toBeGreaterThan(0);
  if (row.unreachable) {
    expect(sum(await daemonCounter(s, 'sluice_webhooks_total', 'result'))).toBe(0);
    expect(s.log.messages['webhook call failed'] ?? 0).toBeGreaterThan(0);
  }
}

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
  it.each(ROWS)(
    '$name',
    async (row) => {
      const s = await faultyStack(row);
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

describe('the job workflow under all faults together', () => {
  it('each job completes once, with its own output and one remote job', async () => {
    const s = await faultyStack({ faults: ALL });
    try {
      const endpointId = await echoEndpoint(s, 2);
      const jobs = 8;
      const ids = await Promise.all(
        Array.from({ length: jobs }, (_, i) => s.sluice.start({ endpointId, input: { i } })),
      );
      const results = await Promise.all(ids.map((id) => s.sluice.result(id)));
      results.forEach((r, i) => {
        expect(r.status, `job ${i}`).toBe('COMPLETED');
        expect(r.output, `job ${i}`).toEqual({ i });
        expect(r.attempts, `job ${i}`).toHaveLength(1);
      });
      const { byInput, keyShared } = platformJobsByInput(s, endpointId);
      expect(keyShared).toBe(0);
      expect(byInput.size).toBe(jobs);
      for (const [i, remote] of byInput)
        expect(remote, `platform jobs of job ${i}`).toEqual([results[i]!.attempts[0]!.remoteJobId]);
      expect(sum(s.log.faults)).toBeGreaterThan(0);
    } finally {
      await s.dispose();
    }
  }, 150_000);
});
