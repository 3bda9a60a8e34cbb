/** The batch part of `sluice demo`: a few hundred mixed example jobs with a per-key cap, shown with the batch progress bar. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BatchClient } from '../batch';
import { watchBatch } from './batch/progress';

/** Inputs of the demo batch. */
export const DEMO_BATCH_SIZE = 300;

/**
 * The demo's input lines: mostly echoes and short sleeps across five tenants, a job that fails
 * every 40th, a flaky one (fails once, then succeeds on its retry) every 30th, and three lines
 * that are not JSON objects (outcome BAD_INPUT).
 */
export function demoBatchLines(dir: string, n = DEMO_BATCH_SIZE): string[] {
  return Array.from({ length: n }, (_, i) => {
    const tenant = `t${i % 5}`;
    if (i === 17 || i === 123 || i === 250) return i === 123 ? '[1, 2, 3]' : '{"kind": "echo", oops';
    if (i % 40 === 39) return JSON.stringify({ kind: 'fail', tenant, message: `input ${i} fails on purpose` });
    if (i % 30 === 29)
      return JSON.stringify({ kind: 'flaky', tenant, failTimes: 1, counterFile: join(dir, `flaky-${i}.count`) });
    if (i % 3 === 0) return JSON.stringify({ kind: 'sleep', tenant, ms: 100 + ((i * 37) % 400) });
    return JSON.stringify({ kind: 'echo', tenant, i });
  });
}

/** Runs the demo batch to its end and returns whether its outcome counts are the expected ones. */
export async function runDemoBatch(
  batch: BatchClient,
  o: { endpointId: string; dataDir: string; tty: boolean; say: (line: string) => void; consoleUrl?: string },
): Promise<boolean> {
  const id = `demo-${Date.now()}`;
  const dir = join(o.dataDir, 'demo', id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const source = join(dir, 'inputs.jsonl');
  writeFileSync(source, demoBatchLines(dir).join('\n') + '\n', { mode: 0o600 });
  const outDir = join(o.dataDir, 'batches', id);
  const workflowId = await batch.start({
    id,
    endpointId: o.endpointId,
    source,
    outDir,
    options: { concurrency: 12, keyPath: '$.tenant', keyLimit: 3, retry: { maxAttempts: 2, initialBackoffMs: 300 } },
  });
  o.say(
    `batch of ${DEMO_BATCH_SIZE} inputs (echo, sleep, fail, flaky, 3 malformed lines), 12 in flight, at most 3 per tenant: ${workflowId}`,
  );
  if (o.consoleUrl) o.say(`  watch it in the console: ${o.consoleUrl}/batches/${encodeURIComponent(id)}`);
  await watchBatch(batch, workflowId, { json: false, intervalMs: 2000, tty: o.tty });
  const s = await batch.result(workflowId);
  const by = s.counts.byStatus;
  o.say(`batch results: ${join(outDir, 'results.jsonl')} (dead letters: dead-letter.jsonl, summary: summary.json)`);
  o.say(`  also: npx sluice batch results ${id} --failed; npx sluice batch status ${id}`);
  const fails = Math.floor(DEMO_BATCH_SIZE / 40);
  return by.BAD_INPUT === 3 && by.FAILED === fails && by.COMPLETED === DEMO_BATCH_SIZE - 3 - fails;
}
