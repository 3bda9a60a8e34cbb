/** `sluice compose init`: a private `.env` of fresh random secrets beside docker-compose.yml, never overwritten by accident. */
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { composeReferences, readCompose, readDotEnv } from '../helpers/compose';
import { sluice } from './run-sluice';

const composeFile = join(__dirname, '..', '..', 'docker-compose.yml');
const refs = composeReferences(readCompose(composeFile));

describe('sluice compose init', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  /** A directory holding a copy of docker-compose.yml. */
  const stackDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-compose-init-'));
    dirs.push(dir);
    copyFileSync(composeFile, join(dir, 'docker-compose.yml'));
    return dir;
  };
  const mode = (f: string): number => statSync(f).mode & 0o777;

  it('writes .env (mode 0600) with distinct random secrets for every required variable, and prints none', async () => {
    const dir = stackDir();
    const r = await sluice(['compose', 'init', '--dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    const file = join(dir, '.env');
    expect(mode(file)).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    const env = readDotEnv(text);
    expect(Object.keys(env).sort()).toEqual([...new Set(refs.filter((x) => x.op === ':?').map((x) => x.name))].sort());
    const values = Object.values(env);
    expect(new Set(values).size).toBe(values.length);
    for (const [k, v] of Object.entries(env)) {
      // At least 80 random bits (MinIO's root user: 20 hex digits), in characters a .env takes as they are.
      expect(v, k).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      if (k !== 'SLUICE_S3_ACCESS_KEY') expect(v.length, k).toBeGreaterThanOrEqual(32);
    }
    expect(env.SLUICE_S3_SECRET_KEY!.length).toBeLessThanOrEqual(40); // MinIO's limit
    expect(env.SLUICE_S3_ACCESS_KEY!.length).toBeLessThanOrEqual(20);
    // The settings compose gives a default are listed, commented out, with that default.
    for (const d of refs.filter((x) => x.op === ':-')) expect(text).toContain(`# ${d.name}=${d.operand}\n`);
    // Where it wrote and what to do next, never a secret.
    expect(r.stdout).toContain(file);
    expect(r.stdout).toMatch(/docker compose up/);
    for (const v of values) expect(r.stdout + r.stderr).not.toContain(v);

    // Another run elsewhere draws other values.
    const other = stackDir();
    expect((await sluice(['compose', 'init', '--dir', other])).code).toBe(0);
    const again = readDotEnv(readFileSync(join(other, '.env'), 'utf8'));
    for (const [k, v] of Object.entries(again)) expect(v, k).not.toBe(env[k]);
  });

  it('refuses to overwrite an existing .env, and replaces it whole (mode 0600) with --force', async () => {
    const dir = stackDir();
    const file = join(dir, '.env');
    expect((await sluice(['compose', 'init', '--dir', dir])).code).toBe(0);
    const before = readFileSync(file, 'utf8');
    const refused = await sluice(['compose', 'init', '--dir', dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/\.env exists.*--force/);
    expect(readFileSync(file, 'utf8')).toBe(before);

    chmodSync(file, 0o644);
    const forced = await sluice(['compose', 'init', '--dir', dir, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/PostgreSQL keeps the password/);
    expect(mode(file)).toBe(0o600);
    const [a, b] = [readDotEnv(before), readDotEnv(readFileSync(file, 'utf8'))];
    expect(Object.keys(b)).toEqual(Object.keys(a));
    for (const k of Object.keys(a)) expect(b[k], k).not.toBe(a[k]);
  });

  it('refuses a directory without a compose file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-compose-none-'));
    dirs.push(dir);
    const r = await sluice(['compose', 'init', '--dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no compose file in/);
  });
});
