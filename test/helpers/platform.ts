import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { request } from 'undici';
import { startPlatform, type Platform, type PlatformOptions } from '../../platform';

/** A platform on port 0 in a fresh data dir, with test-friendly timings. */
export async function testPlatform(
  options: PlatformOptions = {},
): Promise<Platform & { dataDir: string; dispose(): Promise<void> }> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'sluice-test-'));
  const platform = await startPlatform({
    port: 0,
    apiKey: 'test-key',
    logger: pino({ level: process.env.SLUICE_TEST_LOG ?? 'silent' }),
    takeWaitMs: 2000,
    sweepIntervalMs: 50,
    ...options,
    dataDir,
    // Pods run as the test's own user unless a test asks for another (test/platform/pod-isolation.test.ts):
    // as root they would run as nobody, who cannot reach an interpreter installed under /root.
    pods: {
      coldStartMs: 0,
      flashBootColdStartMs: 0,
      stopGraceMs: 3000,
      pingIntervalMs: 1000,
      podUser: null,
      ...options.pods,
    },
  });
  return Object.assign(platform, {
    dataDir,
    async dispose() {
      await platform.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

/** A raw HTTP call returning status, headers and parsed JSON (or text). */
export async function call(
  base: string,
  method: string,
  path: string,
  opts: { key?: string | null; body?: unknown; raw?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Record<string, string | string[] | undefined> }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== null) headers.authorization = `Bearer ${opts.key ?? 'test-key'}`;
  let body: string | Buffer | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await request(`${base}${path}`, { method: method as 'GET', headers, body });
  const text = await res.body.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text so the assertion shows it
  }
  return { status: res.statusCode, body: parsed, headers: res.headers };
}

/**
 * Polls `fn` until it returns a truthy value or `ms` passes. Wait for the state a test asserts,
 * with a generous bound: a loaded machine makes the test slower, never red.
 */
export async function eventually<T>(fn: () => Promise<T> | T, ms = 60_000, every = 50): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `condition not met within ${ms} ms (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`,
      );
    await new Promise((r) => setTimeout(r, every));
  }
}

/** Waits until the job reaches one of `statuses`; returns its record. */
export async function waitForStatus(
  base: string,
  endpointId: string,
  jobId: string,
  statuses: string[],
  ms = 60_000,
  key?: string,
): Promise<any> {
  return eventually(async () => {
    const r = await call(base, 'GET', `/v2/${endpointId}/status/${jobId}`, key ? { key } : {});
    return statuses.includes(r.body?.status) ? r.body : undefined;
  }, ms);
}

/** Registers a template running `command` and an endpoint on it, owned by `userId` (default: the first user). */
export function addEndpoint(
  platform: Platform,
  spec: {
    name: string;
    command: string[];
    env?: Record<string, string>;
    userId?: string;
    workersMin?: number;
    workersMax?: number;
    idleTimeout?: number;
    scalerType?: 'QUEUE_DELAY' | 'REQUEST_COUNT';
    scalerValue?: number;
  },
) {
  const userId = spec.userId ?? platform.user.id;
  const template = platform.registry.saveTemplate({
    userId,
    name: `tpl-${spec.name}-${Math.random().toString(36).slice(2, 8)}`,
    imageName: 'local/test',
    category: 'CPU',
    containerDiskInGb: 5,
    containerRegistryAuthId: null,
    dockerEntrypoint: [],
    dockerStartCmd: spec.command,
    env: spec.env ?? {},
    isPublic: false,
    isRunpod: false,
    isServerless: true,
    ports: [],
    readme: '',
    volumeInGb: 0,
    volumeMountPath: '/workspace',
  });
  return platform.registry.saveEndpoint({
    userId,
    name: spec.name,
    gpuIds: 'AMPERE_16',
    templateId: template.id,
    idleTimeout: spec.idleTimeout ?? 30,
    locations: '',
    flashBootType: 'OFF',
    scalerType: spec.scalerType ?? 'REQUEST_COUNT',
    scalerValue: spec.scalerValue ?? 1,
    workersMin: spec.workersMin ?? 0,
    workersMax: spec.workersMax ?? 3,
    networkVolumeId: null,
  });
}

/** The command that runs one of the project's example handlers (TypeScript worker runtime). */
export { exampleCommand } from '../../platform/control-plane/seed';

/** A TCP port free on 127.0.0.1 right now (for processes that need a fixed port up front). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
