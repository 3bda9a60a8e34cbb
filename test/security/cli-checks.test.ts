/** The CLI's own checks (the real `sluice` process): a batch outside SLUICE_BATCH_ROOTS and a key file others can read are refused before anything connects (exit 2). */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, sluice } from '../cli/run-sluice';

describe('the CLI refuses early', () => {
  const allowed = mkdtempSync(join(tmpdir(), 'sluice-cli-roots-'));
  const outside = mkdtempSync(join(tmpdir(), 'sluice-cli-outside-'));
  afterAll(() => {
    rmSync(allowed, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });
  // Nothing listens on port 9: a refusal that came from connecting would say "cannot reach".
  const env = (extra: Record<string, string> = {}) =>
    cleanEnv({
      TEMPORAL_ADDRESS: '127.0.0.1:9',
      SLUICE_GRAPHQL_URL: 'http://127.0.0.1:9/graphql',
      SLUICE_API_KEY: 'key',
      SLUICE_BATCH_ROOTS: allowed,
      ...extra,
    });

  it('a batch input or output outside SLUICE_BATCH_ROOTS', async () => {
    const file = join(outside, 'in.jsonl');
    writeFileSync(file, '{"input":{}}\n');
    const r = await sluice(['batch', 'start', file, '--endpoint', 'ep', '--out', join(allowed, 'out')], {
      env: env(),
      cwd: allowed,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /input .*in\.jsonl is outside the places batches may read and write \(SLUICE_BATCH_ROOTS: /,
    );
    const inside = join(allowed, 'in.jsonl');
    writeFileSync(inside, '{"input":{}}\n');
    const out = await sluice(['batch', 'start', inside, '--endpoint', 'ep', '--out', join(outside, 'out')], {
      env: env(),
      cwd: allowed,
    });
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/output directory .* is outside .*SLUICE_BATCH_ROOTS/);
  });

  it('a payload key file others can read', async () => {
    const keyFile = join(allowed, 'keys.json');
    writeFileSync(keyFile, JSON.stringify({ current: 'k1', keys: { k1: Buffer.alloc(32, 1).toString('base64') } }));
    chmodSync(keyFile, 0o644);
    writeFileSync(join(allowed, 'in.jsonl'), '{"input":{}}\n');
    const r = await sluice(['batch', 'start', join(allowed, 'in.jsonl'), '--endpoint', 'ep'], {
      env: env({ SLUICE_PAYLOAD_KEY_FILE: keyFile }),
      cwd: allowed,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/SLUICE_PAYLOAD_KEY_FILE: .*mode 0644/);
    expect(r.stderr).not.toMatch(/cannot reach/);
  });
});
