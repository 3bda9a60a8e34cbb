/**
 * A batch survives its daemon SIGKILLed twice and its platform SIGKILLed once: every input ends
 * with exactly one outcome, and the platform (not sluice) counts one remote job per input.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatchClient } from '../../client/batch';
import { type BatchState } from '../../contracts';
import { crashStack } from '../helpers/crash-stack';
import { awaitState, call, withinOrState } from '../helpers/platform';
import { inputFile, resultsOf } from './helpers';

describe('a batch through crashes', () => {
  const ctx = crashStack({ taskQueue: 'batch-crash' });

  it('daemon SIGKILLed twice and the platform once: every index exactly once, one remote job per input', async () => {
    const stack = ctx.s;
    const { sleep } = await stack.start();
    // 120 inputs: each crash finds the batch mid-run with its 12 in flight.
    const n = 120;
    const { file, dir } = inputFile(Array.from({ length: n }, (_, i) => ({ ms: 150, i })));
    const batch = new BatchClient({ client: stack.client, taskQueue: 'batch-crash', resultsDir: stack.resultsDir });
    const id = await batch.start({
      endpointId: sleep!,
      source: file,
      outDir: join(dir, 'out'),
      options: { concurrency: 12, webhookFallbackMs: 1000, retry: { maxAttempts: 6, initialBackoffMs: 200 } },
    });
    const show = (s: BatchState) => ({ phase: s.phase, runs: s.runs, counts: s.counts, waiting: s.waiting });
    /** Resolves once `k` inputs at least are done; else fails with the last state seen. */
    const doneAtLeast = (k: number) => {
      const what = `batch ${id}: ${k} inputs done`;
      return awaitState(
        what,
        () => batch.state(id),
        (s) => s.counts.done >= k,
        { ms: 90_000, show },
      );
    };

    await doneAtLeast(15);
    await stack.crash('daemon');
    await doneAtLeast(45);
    await stack.crash('platform');
    await doneAtLeast(75);
    await stack.crash('daemon');

    const summary = await withinOrState(batch.result(id), 120_000, `batch ${id}'s result`, async () =>
      show(await batch.state(id)),
    );
    const results = resultsOf(
      join(dir, 'out'),
      Array.from({ length: n }, (_, i) => i),
    );
    expect(summary.counts.byStatus).toEqual({ COMPLETED: n });
    for (const r of results.values()) expect(r.remoteJobIds, `index ${r.index}`).toHaveLength(1);
    // Counted by the platform: every job it holds for the endpoint, each input's exactly once.
    const ids = new Set([...results.values()].map((r) => r.remoteJobIds[0]!));
    expect(ids.size).toBe(n);
    for (const jobId of [...ids].slice(0, 20))
      expect((await call(stack.platformUrl, 'GET', `/v2/${sleep}/status/${jobId}`, { key: stack.key })).status).toBe(
        200,
      );
    // The platform's own count of the jobs it holds for the endpoint: one per input, all completed.
    const health = await call(stack.platformUrl, 'GET', `/v2/${sleep}/health`, { key: stack.key });
    expect(health.body.jobs).toMatchObject({ completed: n, failed: 0, inQueue: 0, inProgress: 0 });
  }, 240_000);
});
