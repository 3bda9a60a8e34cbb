import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/platform';

const bin = join(__dirname, '..', '..', 'bin', 'sluice.cjs');

describe('the main job: `npm start` (sluice demo)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-demo-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts the embedded stack, runs the example jobs through workflows, and stops cleanly', { timeout: 180_000 }, async () => {
    const [port, temporalPort, daemonPort] = [await freePort(), await freePort(), await freePort()];
    const r = await new Promise<{ code: number; out: string }>((resolve) => {
      execFile(
        process.execPath,
        [bin, 'demo', '--exit', '--data-dir', dataDir, '--port', String(port), '--temporal-port', String(temporalPort), '--daemon-port', String(daemonPort)],
        { env: { ...process.env, SLUICE_TEMPORAL_METRICS_PORT: '0', SLUICE_LOG_PRETTY: '0' }, timeout: 170_000 },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout + stderr }),
      );
    });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`Temporal UI     http://127.0.0.1:${temporalPort + 1000}`);
    expect(r.out).toMatch(/=> COMPLETED after 1 attempt\(s\) \[submit:COMPLETED\]/);
    expect(r.out).toMatch(/chunk \{"index":7,"text":"chunk 7"\}/);
    // Every chunk line comes before the stream job's final phase line.
    const stream = r.out.slice(r.out.indexOf('stream (8 chunks)'), r.out.indexOf('flaky ('));
    expect(stream).toMatch(/done: COMPLETED/);
    expect(stream.slice(stream.search(/done: COMPLETED/))).not.toMatch(/chunk \{/);
    expect(r.out).toMatch(/=> COMPLETED after 3 attempt\(s\) \[submit:FAILED, retry:FAILED, retry:COMPLETED\]/);
    expect(r.out).toMatch(/=> CANCELLED/);
    // The batch: 300 inputs, a progress line while it runs (not a terminal here), its results path.
    expect(r.out).toMatch(/batch of 300 inputs .*: batch\/demo-\d+/);
    expect(r.out).toMatch(/\d+\/300 done/);
    // Spend priced at the seeded endpoint's worker costPerHr (its workers start with the batch).
    expect(r.out).toMatch(/spend +\$\d+\.\d+ at \$\d+(\.\d+)?\/h/);
    expect(r.out).toMatch(/batch results: .*batches\/demo-\d+\/results\.jsonl/);
    expect(r.out).toContain('all demo jobs and the batch behaved as expected');
  });
});
