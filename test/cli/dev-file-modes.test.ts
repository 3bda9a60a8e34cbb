/**
 * Every file `sluice dev` writes under its data dir is private to its user: folders 0700, files
 * 0600 (dev.json with the API key, the platform's database and WAL, Temporal's SQLite and WAL, the
 * results store with the webhook secret and outputs, a batch's results, logs), whatever the umask (the tests run with 022).
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/platform';
import { cleanEnv, sluice, startSluice } from './run-sluice';

/** Every entry under `dir` (itself included) with its permission bits, as `path: mode` lines. */
function modes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (p: string): void => {
    const st = statSync(p);
    out[`${relative(dir, p) || '.'}${st.isDirectory() ? '/' : ''}`] = (st.mode & 0o777).toString(8);
    if (st.isDirectory()) for (const e of readdirSync(p)) walk(join(p, e));
  };
  walk(dir);
  return out;
}

describe('sluice dev: the modes of what it writes', () => {
  const root = mkdtempSync(join(tmpdir(), 'sluice-modes-'));
  const dataDir = join(root, 'state');
  let dev: ReturnType<typeof startSluice>;
  beforeAll(async () => {
    const temporalPort = await freePort();
    dev = startSluice(
      ['dev', '--data-dir', dataDir, '--port', '0', '--temporal-port', String(temporalPort), '--daemon-port', '0'],
      cleanEnv({ SLUICE_TEMPORAL_METRICS_PORT: '0' }),
      root,
    );
    await dev.waitFor(/endpoints\s+.*echo=/);
  });
  afterAll(async () => {
    await dev?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('folders are 0700 and files 0600 after a job with a stored output and a batch', async () => {
    const env = cleanEnv({ SLUICE_DATA_DIR: dataDir });
    const big = JSON.stringify({ text: 'x'.repeat(100_000) });
    const run = await sluice(['run', '--endpoint', 'echo', '--input', big, '--json'], { cwd: root, env });
    expect(run.code, run.stderr).toBe(0);
    const inputs = join(root, 'inputs.jsonl');
    writeFileSync(inputs, '{"n":1}\n{"n":2}\n');
    const batch = await sluice(['batch', 'start', inputs, '--endpoint', 'echo', '--json'], { cwd: root, env });
    expect(batch.code, batch.stderr).toBe(0);
    const all = modes(dataDir);
    const names = Object.keys(all);
    // What must be there (and so was checked):
    for (const want of [
      /^dev\.json$/,
      /^temporal\/.*\.sqlite$/,
      /^temporal\/.*-wal$/,
      /^platform\/platform\.sqlite-wal$/,
      /^platform\/pods\/.*pod\.log$/,
      /^temporal\/temporal\.log$/,
      /webhook-secret/,
      /^batches\/.*results\.jsonl$/,
    ])
      expect(
        names.some((n) => want.test(n)),
        `${want} in ${names.join(' ')}`,
      ).toBe(true);
    const open = Object.entries(all).filter(([p, m]) => (p.endsWith('/') ? m !== '700' : m !== '600'));
    expect(open).toEqual([]);
  });
});
