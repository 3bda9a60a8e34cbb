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
 * with a generous bound: a loaded machine makes the test slower, never red. A call of `fn` that
 * never answers fails at the deadline too (it is not awaited past it).
 */
export async function eventually<T>(fn: () => Promise<T> | T, ms = 60_000, every = 50): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await within(Promise.resolve().then(fn), Math.max(1, deadline - Date.now()), 'the last call');
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

/** `p`, or an error naming `what` once `ms` pass without its answer. */
export async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** `p` within `ms`, else fails naming `what` with the state `state()` reads then (bounded too). */
export async function withinOrState<T>(
  p: Promise<T>,
  ms: number,
  what: string,
  state: () => Promise<unknown>,
): Promise<T> {
  return within(p, ms, what).catch(async (err: Error) => {
    const now = await within(state(), 15_000, 'its state').catch((e: Error) => e.message);
    throw new Error(`${err.message}; its state now: ${JSON.stringify(now)}`);
  });
}

/**
 * Reads a state (each read bounded by `readMs`) until `ok` holds or `ms` pass; else fails with what
 * was awaited, the last state seen (as `show` puts it, and when), and why the last read gave none
 * (it failed or hung).
 */
export async function awaitState<S>(
  what: string,
  read: () => Promise<S>,
  ok: (s: S) => boolean,
  opts: { ms?: number; readMs?: number; every?: number; show?: (s: S) => unknown } = {},
): Promise<S> {
  const { ms = 60_000, readMs = 15_000, every = 200, show = (s: S) => s } = opts;
  const t0 = Date.now();
  let seen: { s: S; at: number } | undefined;
  let failed: unknown;
  for (;;) {
    try {
      const s = await within(read(), Math.max(1, Math.min(readMs, t0 + ms - Date.now())), 'the read');
      if (ok(s)) return s;
      seen = { s, at: Date.now() };
      failed = undefined;
    } catch (err) {
      failed = err;
    }
    if (Date.now() - t0 >= ms) {
      const last = seen
        ? `${JSON.stringify(show(seen.s))} (${Math.round((Date.now() - seen.at) / 1000)} s ago)`
        : 'none (no read answered)';
      const why = failed ? `; the last read: ${failed instanceof Error ? failed.message : String(failed)}` : '';
      throw new Error(`awaited ${what} for ${ms} ms; the last state seen: ${last}${why}`);
    }
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
