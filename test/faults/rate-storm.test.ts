/**
 * A 429 storm from another client: mid-batch, a second process hammers `/run` of the same endpoint
 * with the same key until the platform's own rate limit (lowered to 20 per 1 s) answers it and the
 * daemon with 429s; then it stops. The batch completes exactly (one platform job per input), the
 * daemon met the storm's 429s, and after the storm the batch is held by its window again, not by
 * the rate budget: its submissions recovered (read in the batch state and the daemon's metrics).
 * Every wait is for a state, not a time: the storm's process is started (and ready) before the
 * batch, and begins at a word on its stdin; it lasts until its effect is seen; the recovery is
 * looked for in the states sampled up to the batch's end.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BatchState } from '../../contracts';
import { stopProcessGroup } from '../../common/process';
import { batchStack, inputFile, resultsOf } from '../batch/helpers';
import { eventually } from '../helpers/platform';
import { daemonCounter } from './helpers';

const LIMITS = { limits: { run: { perWindow: 20, concurrent: 200 } }, windowMs: 1000 };
const N = 160;
/** 600 ms jobs at concurrency 8: ~13 submissions/s, under the limit, so alone the batch is held by its window. */
const JOB_MS = 600;

/** The other client: once told `go` on stdin, 8 loops sending `/run` as fast as answers come, printing its counts by status (one JSON line each 100 ms). */
const STORM = `
const [url, key] = process.argv.slice(1);
const counts = {};
let n = 0;
async function loop() {
  for (;;) {
    try {
      const r = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' }, body: JSON.stringify({ input: { storm: n++, ms: 0 } }) });
      await r.text();
      counts[r.status] = (counts[r.status] ?? 0) + 1;
    } catch (e) { counts.error = (counts.error ?? 0) + 1; }
  }
}
console.log('ready');
process.stdin.once('data', () => {
  for (let i = 0; i < 8; i++) loop();
  setInterval(() => console.log(JSON.stringify(counts)), 100);
});
`;

describe('a 429 storm from another client on the endpoint', () => {
  const ctx = batchStack({ platform: { rateLimits: { ...LIMITS, requestsPerWorker: 0 } }, rateBudget: LIMITS });

  // The daemon's 429 counter counts every 429 answer (each attempt): during the storm its submissions
  // wait the 429s out inside the client (retried, or abandoned as detached calls), so counting calls by
  // their outcome saw none (issue 19).
  it('the batch completes exactly and goes back to sending at its window once the storm ends', async () => {
    const { s, batch } = ctx;
    const sleep = s.platform.registry.saveEndpoint({ ...s.platform.examples.sleep!, workersMin: 10, workersMax: 10 });
    await eventually(() => s.platform.pool.workerCounts(sleep.id).idle >= 10, 60_000);
    // Started (and ready) before the batch, so that a loaded machine's slow process start does not
    // leave the batch time to send its last inputs before the storm.
    const other = spawn(process.execPath, ['-e', STORM, `${s.platform.url}/v2/${sleep.id}/run`, 'test-key'], {
      stdio: ['pipe', 'pipe', 'inherit'],
      detached: true,
    });
    let stormOut = '';
    let stormReady = false;
    let stormCounts: Record<string, number> = {};
    other.stdout!.on('data', (d: Buffer) => {
      stormOut += d.toString();
      const lines = stormOut.split('\n');
      stormOut = lines.pop()!;
      for (const l of lines) if (l.startsWith('{')) stormCounts = JSON.parse(l) as Record<string, number>;
      if (lines.includes('ready')) stormReady = true;
    });
    try {
      await eventually(() => stormReady, 60_000);
      const { file, dir } = inputFile(Array.from({ length: N }, (_, i) => ({ i, ms: JOB_MS })));
      const id = await batch.start({
        endpointId: sleep.id,
        source: file,
        outDir: join(dir, 'out'),
        options: { concurrency: 8 },
      });
      const states: { storm: 'before' | 'during' | 'after'; state: BatchState }[] = [];
      let storm: 'before' | 'during' | 'after' = 'before';
      let watching = true;
      const watcher = (async () => {
        while (watching) {
          states.push({ storm, state: await batch.state(id) });
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const limited = async () => (await daemonCounter(s, 'sluice_http_rate_limited_total', 'operation')).run ?? 0;
      try {
        try {
          await eventually(async () => (await batch.state(id)).counts.done >= 16, 60_000);
          other.stdin!.write('go\n');
          storm = 'during';
          // The storm lasts until it was refused and the daemon met its 429s and held its submissions for them.
          await eventually(async () => (await limited()) >= 3 && (stormCounts['429'] ?? 0) >= 10, 90_000);
          await eventually(
            () => states.some((x) => x.storm === 'during' && x.state.waiting.includes('rate-budget')),
            90_000,
          );
        } finally {
          await stopProcessGroup(other, 2000);
        }
        storm = 'after';
        const limitedAtEnd = await limited();
        const stateAtEnd = await batch.state(id);
        expect(stateAtEnd.counts.done, 'the storm ended mid-batch').toBeLessThan(N);
        const summary = await batch.result(id);
        // Recovered: after the storm the batch was held by its window again while it still had input to
        // send (looked for in every state sampled up to its end, not within a time).
        const recovered = states.some(
          (x) =>
            x.storm === 'after' && x.state.waiting.includes('window-full') && !x.state.waiting.includes('rate-budget'),
        );
        expect(recovered, 'held by its window after the storm').toBe(true);
        expect(summary.counts.byStatus).toEqual({ COMPLETED: N });
        // The daemon sent the rest of the batch after the storm (each input once: below).
        expect(summary.counts.done - stateAtEnd.counts.done).toBeGreaterThan(0);
        expect(limitedAtEnd).toBeGreaterThanOrEqual(3);
      } finally {
        watching = false;
        await watcher.catch(() => undefined);
      }
      const results = resultsOf(
        join(dir, 'out'),
        Array.from({ length: N }, (_, i) => i),
      );
      // Counted by the platform: one job per input of the batch (the storm's own jobs carry no `i`).
      const mine = s.platform.engine.jobs
        .ofEndpoint(sleep.id)
        .filter((j) => (j.input as { i?: number }).i !== undefined);
      expect(mine).toHaveLength(N);
      for (const j of mine) expect(results.get((j.input as { i: number }).i)!.remoteJobIds).toEqual([j.id]);
    } finally {
      await stopProcessGroup(other, 2000);
    }
  }, 300_000);
});
