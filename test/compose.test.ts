import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../worker/config';

// No Docker engine here: the compose file is parsed and checked against what the code expects.
const root = join(__dirname, '..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { image?: string; build?: string; command?: string[]; environment?: Record<string, string>; depends_on?: Record<string, unknown>; ports?: string[] }>;
  volumes: Record<string, unknown>;
};

describe('docker-compose.yml', () => {
  it('runs Temporal on PostgreSQL, the UI, the platform and the worker daemon', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['platform', 'postgresql', 'temporal', 'temporal-ui', 'worker']);
    expect(compose.services.temporal!.environment!.DB).toBe('postgres12');
    expect(compose.services.temporal!.environment!.POSTGRES_SEEDS).toBe('postgresql');
    for (const s of ['postgresql', 'temporal', 'temporal-ui']) expect(compose.services[s]!.image).toMatch(/:\d+\.\d+/);
    for (const s of ['platform', 'worker']) expect(compose.services[s]!.build).toBe('.');
    expect(compose.services.worker!.depends_on).toHaveProperty('temporal');
    expect(compose.services.worker!.depends_on).toHaveProperty('platform');
  });

  it("configures the worker with variables the daemon's config accepts, pointing at the other services", () => {
    const env = compose.services.worker!.environment!;
    const config = loadConfig(Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])));
    expect(config.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(config.SLUICE_QUEUE_URL).toBe('http://platform:8080/v2');
    expect(config.SLUICE_PUBLIC_URL).toBe('http://worker:8288');
    expect(config.SLUICE_DAEMON_HOST).toBe('0.0.0.0');
    // The platform and the worker share the key.
    expect(compose.services.platform!.environment!.SLUICE_API_KEY).toBe(env.SLUICE_API_KEY);
  });

  it('runs commands the CLI has, and mounts every named volume that it declares', () => {
    for (const s of ['platform', 'worker']) {
      const cmd = compose.services[s]!.command!;
      expect(cmd.slice(0, 2)).toEqual(['node', 'bin/sluice.cjs']);
      // The command and every option it is given parse: `--help` after them exits 0.
      execFileSync(process.execPath, [join(root, 'bin', 'sluice.cjs'), ...cmd.slice(2), '--help'], { stdio: 'pipe' });
    }
    expect(Object.keys(compose.volumes).sort()).toEqual(['platform-data', 'postgres-data', 'results-data']);
  });
});
