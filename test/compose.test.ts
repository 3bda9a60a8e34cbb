import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../worker/config';

// No Docker engine here: the compose file is parsed and checked against what the code expects.
const root = join(__dirname, '..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    {
      image?: string;
      build?: string;
      command?: string[];
      entrypoint?: string[];
      environment?: Record<string, string>;
      depends_on?: Record<string, { condition?: string }>;
      ports?: string[];
      expose?: string[];
      container_name?: string;
    }
  >;
  volumes: Record<string, unknown>;
};

describe('docker-compose.yml', () => {
  it('runs Temporal on PostgreSQL, the UI, an S3-compatible store, the platform and the daemons', () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      'daemon',
      'minio',
      'minio-init',
      'platform',
      'postgresql',
      'temporal',
      'temporal-ui',
    ]);
    expect(compose.services.temporal!.environment!.DB).toBe('postgres12');
    expect(compose.services.temporal!.environment!.POSTGRES_SEEDS).toBe('postgresql');
    for (const s of ['postgresql', 'temporal', 'temporal-ui']) expect(compose.services[s]!.image).toMatch(/:\d+\.\d+/);
    for (const s of ['minio', 'minio-init']) expect(compose.services[s]!.image).toMatch(/:RELEASE\.\d{4}-/);
    for (const s of ['platform', 'daemon']) expect(compose.services[s]!.build).toBe('.');
    expect(compose.services.daemon!.depends_on).toHaveProperty('temporal');
    expect(compose.services.daemon!.depends_on).toHaveProperty('platform');
    expect(compose.services.daemon!.depends_on!['minio-init']!.condition).toBe('service_completed_successfully');
  });

  it('lets the daemon scale (`--scale daemon=3`): no fixed host port or name, one public URL, shared bucket and secret', () => {
    const d = compose.services.daemon!;
    expect(d.ports).toBeUndefined();
    expect(d.container_name).toBeUndefined();
    expect(d.expose).toEqual(['8288']);
    const env = d.environment!;
    const config = loadConfig(Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])));
    expect(config.SLUICE_PUBLIC_URL).toBe('http://daemon:8288');
    expect(config.SLUICE_WEBHOOK_SECRET).toBeTruthy();
    expect(config.SLUICE_RESULTS_URL).toBe('s3://sluice/results');
    // The bucket the daemons use is the one minio-init creates, on the server the AWS variables name.
    expect(compose.services['minio-init']!.entrypoint!.join(' ')).toContain('mc mb --ignore-existing store/sluice');
    expect(env.AWS_ENDPOINT_URL_S3).toBe('http://minio:9000');
    expect(env.AWS_ACCESS_KEY_ID).toBe(compose.services.minio!.environment!.MINIO_ROOT_USER);
    expect(env.AWS_SECRET_ACCESS_KEY).toBe(compose.services.minio!.environment!.MINIO_ROOT_PASSWORD);
  });

  it("configures the daemon with variables the daemon's config accepts, pointing at the other services", () => {
    const env = compose.services.daemon!.environment!;
    const config = loadConfig(Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])));
    expect(config.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(config.SLUICE_QUEUE_URL).toBe('http://platform:8080/v2');
    expect(config.SLUICE_DAEMON_HOST).toBe('0.0.0.0');
    // The platform and the worker share the key.
    expect(compose.services.platform!.environment!.SLUICE_API_KEY).toBe(env.SLUICE_API_KEY);
  });

  it('runs commands the CLI has, and mounts every named volume that it declares', () => {
    for (const s of ['platform', 'daemon']) {
      const cmd = compose.services[s]!.command!;
      expect(cmd.slice(0, 2)).toEqual(['node', 'bin/sluice.cjs']);
      // The command and every option it is given parse: `--help` after them exits 0.
      execFileSync(process.execPath, [join(root, 'bin', 'sluice.cjs'), ...cmd.slice(2), '--help'], { stdio: 'pipe' });
    }
    expect(Object.keys(compose.volumes).sort()).toEqual(['minio-data', 'platform-data', 'postgres-data']);
  });
});
