/** docker-compose.yml, read as `docker compose` reads it (no Docker engine here), with the `.env` that `sluice compose init` writes. */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../worker/config';
import { assertConsoleReachable, loadConsoleSettings } from '../config/console';
import { cleanEnv, sluice } from './cli/run-sluice';
import {
  composeReferences,
  interpolateTree,
  MissingVariable,
  readCompose,
  readDotEnv,
  type ComposeFile,
} from './helpers/compose';

const root = join(__dirname, '..');
const file = join(root, 'docker-compose.yml');
/** As written: `${...}` not interpolated. */
const raw = readCompose(file);
const refs = composeReferences(raw);
/** The variables compose requires (`${NAME:?message}`). */
const required = [...new Set(refs.filter((r) => r.op === ':?').map((r) => r.name))].sort();
/** Keys whose value is a secret, in any service's environment. */
const SECRET_KEY = /PASSWORD|PWD|SECRET|API_KEY|ACCESS_KEY|ROOT_USER|TOKEN/;

/** The daemon's environment as its config parser takes it. */
const daemonConfig = (c: ComposeFile) =>
  loadConfig(Object.fromEntries(Object.entries(c.services.daemon!.environment!).map(([k, v]) => [k, String(v)])));

describe('docker-compose.yml', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-compose-'));
  let env: Record<string, string>;
  /** Interpolated with the `.env` of `sluice compose init`, as `docker compose up` runs it. */
  let compose: ComposeFile;
  beforeAll(async () => {
    copyFileSync(file, join(dir, 'docker-compose.yml'));
    const init = await sluice(['compose', 'init', '--dir', dir]);
    expect(init.code, init.stderr).toBe(0);
    env = readDotEnv(readFileSync(join(dir, '.env'), 'utf8'));
    compose = interpolateTree(raw, env);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs Temporal on PostgreSQL, the UI, an S3-compatible store, the platform, the daemons, the console, Prometheus and Grafana', () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      'console',
      'daemon',
      'grafana',
      'minio',
      'minio-init',
      'platform',
      'postgresql',
      'prometheus',
      'temporal',
      'temporal-ui',
    ]);
    expect(compose.services.temporal!.environment!.DB).toBe('postgres12');
    expect(compose.services.temporal!.environment!.POSTGRES_SEEDS).toBe('postgresql');
    expect(compose.services.temporal!.environment!.POSTGRES_PWD).toBe(
      compose.services.postgresql!.environment!.POSTGRES_PASSWORD,
    );
    for (const s of ['postgresql', 'temporal', 'temporal-ui', 'prometheus', 'grafana'])
      expect(compose.services[s]!.image).toMatch(/:v?\d+\.\d+/);
    for (const s of ['minio', 'minio-init']) expect(compose.services[s]!.image).toMatch(/:RELEASE\.\d{4}-/);
    for (const s of ['platform', 'daemon', 'console']) expect(compose.services[s]!.build).toBe('.');
    expect(compose.services.daemon!.depends_on).toHaveProperty('temporal');
    expect(compose.services.daemon!.depends_on).toHaveProperty('platform');
    expect(compose.services.daemon!.depends_on!['minio-init']!.condition).toBe('service_completed_successfully');
  });

  it('has no default secret: each is required (`${NAME:?message}`), and compose refuses to start until it is set', () => {
    expect(required).toEqual([
      'SLUICE_API_KEY',
      'SLUICE_CONSOLE_TOKEN',
      'SLUICE_GRAFANA_PASSWORD',
      'SLUICE_POSTGRES_PASSWORD',
      'SLUICE_S3_ACCESS_KEY',
      'SLUICE_S3_SECRET_KEY',
      'SLUICE_WEBHOOK_SECRET',
    ]);
    // `sluice compose init` sets exactly these (compose reads nothing else from .env).
    expect(Object.keys(env).sort()).toEqual(required);
    // A required variable is never given a default elsewhere, and its message says what to do.
    for (const r of refs.filter((x) => required.includes(x.name))) {
      expect(r.op, r.text).toBe(':?');
      expect(r.operand, r.text).toContain('sluice compose init');
    }
    // Every secret-looking setting of every service is a required variable, never a literal.
    const secrets = Object.entries(raw.services).flatMap(([s, svc]) =>
      Object.entries(svc.environment ?? {})
        .filter(([k]) => SECRET_KEY.test(k))
        .map(([k, v]) => [`${s}.${k}`, String(v)] as const),
    );
    expect(secrets.length).toBeGreaterThanOrEqual(10);
    for (const [where, v] of secrets) expect(v, where).toMatch(/^\$\{[A-Z0-9_]+:\?[^}]+\}$/);
    // Without .env, compose stops at the first interpolation, naming each missing variable.
    expect(() => interpolateTree(raw, {})).toThrow(MissingVariable);
    try {
      interpolateTree(raw, {});
    } catch (err) {
      for (const name of required) expect((err as Error).message).toContain(`required variable ${name} is missing`);
    }
  });

  it('publishes only what the CLI on the host reaches, on 127.0.0.1 unless SLUICE_BIND opts in', () => {
    const published = Object.fromEntries(
      Object.entries(raw.services)
        .filter(([, svc]) => svc.ports)
        .map(([s, svc]) => [s, svc.ports!]),
    );
    // The platform and Temporal (gRPC, UI) for the CLI; MinIO's S3 API for batch files and results;
    // Prometheus, Grafana and the web console for the operator. Not PostgreSQL, not MinIO's console, not the daemons.
    expect(published).toEqual({
      console: ['${SLUICE_BIND:-127.0.0.1}:8289:8289'],
      prometheus: ['${SLUICE_BIND:-127.0.0.1}:9090:9090'],
      grafana: ['${SLUICE_BIND:-127.0.0.1}:3000:3000'],
      platform: ['${SLUICE_BIND:-127.0.0.1}:8080:8080'],
      temporal: ['${SLUICE_BIND:-127.0.0.1}:7233:7233'],
      'temporal-ui': ['${SLUICE_BIND:-127.0.0.1}:8233:8080'],
      minio: ['${SLUICE_BIND:-127.0.0.1}:9000:9000'],
    });
    const ports = (c: ComposeFile) => Object.values(c.services).flatMap((svc) => svc.ports ?? []);
    expect(ports(compose).every((p) => p.startsWith('127.0.0.1:'))).toBe(true);
    expect(ports(interpolateTree(raw, { ...env, SLUICE_BIND: '0.0.0.0' })).every((p) => p.startsWith('0.0.0.0:'))).toBe(
      true,
    );
  });

  it("keeps the Temporal UI's write actions off unless SLUICE_UI_READ_ONLY=false", () => {
    const ui = (c: ComposeFile) => c.services['temporal-ui']!.environment!.TEMPORAL_DISABLE_WRITE_ACTIONS;
    expect(ui(compose)).toBe('true');
    expect(ui(interpolateTree(raw, { ...env, SLUICE_UI_READ_ONLY: 'false' }))).toBe('false');
  });

  it('lets the daemon scale (`--scale daemon=3`): no fixed host port or name, one public URL, shared bucket and secret', () => {
    const d = compose.services.daemon!;
    expect(d.ports).toBeUndefined();
    expect(d.container_name).toBeUndefined();
    expect(d.expose).toEqual(['8288']);
    const config = daemonConfig(compose);
    expect(config.SLUICE_PUBLIC_URL).toBe('http://daemon:8288');
    expect(config.SLUICE_WEBHOOK_SECRET).toBe(env.SLUICE_WEBHOOK_SECRET);
    expect(config.SLUICE_RESULTS_URL).toBe('s3://sluice/results');
    // The bucket the daemons use is the one minio-init creates, on the server the AWS variables name.
    expect(compose.services['minio-init']!.entrypoint!.join(' ')).toContain('mc mb --ignore-existing store/sluice');
    const e = d.environment!;
    expect(e.AWS_ENDPOINT_URL_S3).toBe('http://minio:9000');
    expect(e.AWS_ACCESS_KEY_ID).toBe(compose.services.minio!.environment!.MINIO_ROOT_USER);
    expect(e.AWS_SECRET_ACCESS_KEY).toBe(compose.services.minio!.environment!.MINIO_ROOT_PASSWORD);
  });

  it("configures the daemon with variables the daemon's config accepts, pointing at the other services", () => {
    const config = daemonConfig(compose);
    expect(config.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(config.SLUICE_QUEUE_URL).toBe('http://platform:8080/v2');
    expect(config.SLUICE_DAEMON_HOST).toBe('0.0.0.0');
    // The platform and the worker share the key .env holds.
    expect(config.SLUICE_API_KEY).toBe(env.SLUICE_API_KEY);
    expect(compose.services.platform!.environment!.SLUICE_API_KEY).toBe(env.SLUICE_API_KEY);
  });

  it("serves the console off its container only with the token .env holds, its settings accepted, at the daemons' Temporal and bucket", () => {
    const e = compose.services.console!.environment as Record<string, string>;
    const console = loadConsoleSettings(e);
    expect(console).toMatchObject({ host: '0.0.0.0', port: 8289, token: env.SLUICE_CONSOLE_TOKEN });
    expect(() => assertConsoleReachable(console)).not.toThrow();
    expect(() => assertConsoleReachable({ ...console, token: undefined })).toThrow(/SLUICE_CONSOLE_TOKEN/);
    expect(console.temporalUiUrl).toBe('http://127.0.0.1:8233');
    const daemon = daemonConfig(compose);
    for (const k of ['TEMPORAL_ADDRESS', 'SLUICE_RESULTS_URL', 'SLUICE_QUEUE_URL', 'SLUICE_API_KEY'] as const)
      expect(e[k], k).toBe(String(daemon[k]));
  });

  it("runs commands the CLI has (the image's entrypoint is `sluice`), and mounts every named volume that it declares", () => {
    for (const s of ['platform', 'daemon', 'console']) {
      const cmd = compose.services[s]!.command!;
      expect(cmd[0]).toBe(s === 'daemon' ? 'worker' : s);
      // The command and every option it is given parse: `--help` after them exits 0.
      execFileSync(process.execPath, [join(root, 'bin', 'sluice.cjs'), ...cmd, '--help'], {
        stdio: 'pipe',
        env: cleanEnv(),
      });
    }
    expect(Object.keys(compose.volumes).sort()).toEqual([
      'grafana-data',
      'minio-data',
      'platform-data',
      'postgres-data',
      'prometheus-data',
    ]);
  });

  it('has Prometheus scrape every daemon and the platform, and Grafana provisioned with the dashboard behind its password', () => {
    // Mounted from the repository, read-only: each mount's source exists.
    const mounts = (svc: string) =>
      compose.services[svc]!.volumes!.filter((v) => v.startsWith('./')).map((v) => v.split(':'));
    for (const svc of ['prometheus', 'grafana'])
      for (const [src, , mode] of mounts(svc)) {
        expect(existsSync(join(root, src!)), src).toBe(true);
        expect(mode).toBe('ro');
      }
    const prom = parse(readFileSync(join(root, 'deploy/prometheus/prometheus.yml'), 'utf8')) as {
      rule_files: string[];
      scrape_configs: {
        job_name: string;
        dns_sd_configs?: { names: string[]; port: number }[];
        static_configs?: { targets: string[] }[];
      }[];
    };
    const jobs = Object.fromEntries(prom.scrape_configs.map((j) => [j.job_name, j]));
    // Every daemon replica by the service's name, on the port the daemon listens on.
    expect(jobs['sluice-daemon']!.dns_sd_configs).toEqual([
      expect.objectContaining({ names: ['daemon'], port: daemonConfig(compose).SLUICE_DAEMON_PORT }),
    ]);
    expect(jobs['sluice-platform']!.static_configs).toEqual([{ targets: ['platform:8080'] }]);
    expect(compose.services.platform!.command).toEqual(expect.arrayContaining(['--port', '8080']));
    for (const f of prom.rule_files) expect(existsSync(join(root, 'deploy/prometheus', f)), f).toBe(true);

    const g = compose.services.grafana!;
    expect(g.environment!.GF_SECURITY_ADMIN_PASSWORD).toBe(env.SLUICE_GRAFANA_PASSWORD);
    expect(g.environment!.GF_AUTH_ANONYMOUS_ENABLED).toBe('false');
    const ds = parse(readFileSync(join(root, 'deploy/grafana/provisioning/datasources/prometheus.yml'), 'utf8')) as {
      datasources: { type: string; url: string }[];
    };
    expect(ds.datasources).toEqual([expect.objectContaining({ type: 'prometheus', url: 'http://prometheus:9090' })]);
    expect(compose.services.prometheus!.ports![0]).toMatch(/:9090:9090$/);
    // The dashboard provider reads the folder the dashboard is mounted in.
    const dash = parse(readFileSync(join(root, 'deploy/grafana/provisioning/dashboards/sluice.yml'), 'utf8')) as {
      providers: { options: { path: string } }[];
    };
    const dashboardMount = g.volumes!.find((v) => v.startsWith('./deploy/grafana/sluice.json:'))!;
    expect(dashboardMount.split(':')[1]).toBe(`${dash.providers[0]!.options.path}/sluice.json`);
  });
});
