/**
 * The stack a crash test SIGKILLs and starts again on the same state: Temporal, and the platform and
 * the daemon as `sluice` processes. A failed test (or SLUICE_CRASH_KEEP=1) keeps its data dir, the
 * Temporal SQLite file and each process's output (logs/, at SLUICE_CRASH_LOG or `warn`) for a look.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { hasExited } from '../../common/process';
import { daemonEnv, temporalEnv } from './orchestrator';
import { freePort } from './platform';
import { startSluice, startTemporalServer, type SluiceProcess, type TemporalServer } from './servers';

/** Options of {@link crashStack}. */
export interface CrashStackOptions {
  /** The daemons' task queue (the test's clients start their workflows on it). */
  taskQueue: string;
  /**
   * Temporal's server: `memory`, the SDK's test environment, which the test never kills; `file`, the
   * dev server on a SQLite file in the stack's data dir (test/helpers/servers.ts), which
   * `crash('temporal')` SIGKILLs and starts again on the same file and port.
   * @default 'memory'
   */
  temporal?: 'memory' | 'file';
}

/** A part of the stack {@link CrashStack.crash} SIGKILLs. */
export type CrashPart = 'temporal' | 'platform' | 'daemon';

/** What {@link startCrashStack} returns: Temporal runs; `start()` starts the platform and a daemon. */
export interface CrashStack {
  /** A client of the Temporal server; it reconnects by itself after a restart. */
  client: Client;
  /** The daemons' results store. */
  resultsDir: string;
  /** The platform's base URL and API key: the same across its restarts. */
  platformUrl: string;
  key: string;
  /**
   * Starts `sluice platform` (on the stack's port and data dir) and `sluice worker` (on the task queue) at once;
   * resolves to the platform's example endpoints' ids by name.
   */
  start(): Promise<Record<string, string>>;
  /**
   * SIGKILLs `parts` at once (a `sluice` process itself: the platform's reaper ends its worker pods;
   * Temporal's whole group), then starts them again on the same state and ports, Temporal and the
   * platform at once, the daemon last; resolves once each answers again. `temporal` needs `temporal: 'file'`.
   */
  crash(...parts: CrashPart[]): Promise<void>;
  /** Stops what still runs (SIGTERM: the platform stops its pods), then Temporal; removes the data dir unless `keep`. */
  stop(keep?: boolean): Promise<void>;
}

/** A crash test file's stack ({@link startCrashStack}), started in beforeAll and stopped in afterAll. */
export function crashStack(options: CrashStackOptions): { readonly s: CrashStack } {
  const ctx = {} as { s: CrashStack };
  let failed = false;
  beforeAll(async () => {
    ctx.s = await startCrashStack(options);
  });
  afterEach(({ task }) => {
    if (task.result?.state === 'fail') failed = true;
  });
  afterAll(() => ctx.s?.stop(failed || process.env.SLUICE_CRASH_KEEP === '1'));
  return ctx;
}

/** A crash test's stack in a fresh data dir, Temporal running. */
export async function startCrashStack(options: CrashStackOptions): Promise<CrashStack> {
  const dataDir = mkdtempSync(join(tmpdir(), `sluice-${options.taskQueue}-`));
  const resultsDir = join(dataDir, 'results');
  const port = await freePort();
  const key = 'crash-key';
  const platformUrl = `http://127.0.0.1:${port}`;
  const temporal = await crashTemporal(options.temporal ?? 'memory', join(dataDir, 'temporal.sqlite'));
  const running: Partial<Record<'platform' | 'daemon', SluiceProcess>> = {};
  const started: { name: string; p: SluiceProcess }[] = [];
  const level = process.env.SLUICE_CRASH_LOG ?? 'warn';
  const start = async (part: 'platform' | 'daemon'): Promise<SluiceProcess> => {
    const p = (running[part] =
      part === 'platform'
        ? await startSluice(
            ['platform', '--port', String(port), '--data-dir', dataDir, '--api-key', key],
            { SLUICE_LOG_LEVEL: level },
            /endpoints\s/,
          )
        : await startSluice(
            ['worker'],
            {
              ...daemonEnv({ url: platformUrl, apiKey: key }, temporal.address, resultsDir),
              SLUICE_LOG_LEVEL: level,
              SLUICE_TASK_QUEUE: options.taskQueue,
              SLUICE_DAEMON_PORT: String(await freePort()),
            },
            /sluice worker running/,
          ));
    started.push({ name: `${started.length}-${part}`, p });
    return p;
  };
  const kill = async (part: CrashPart): Promise<void> => {
    if (part === 'temporal') {
      if (!temporal.server) throw new Error("crash('temporal') needs crashStack({ temporal: 'file' })");
      return temporal.server.kill();
    }
    const child = running[part]!.child;
    const gone = new Promise((r) => (hasExited(child) ? r(undefined) : child.once('exit', r)));
    child.kill('SIGKILL');
    await gone;
  };
  return {
    client: temporal.client,
    resultsDir,
    platformUrl,
    key,
    async start() {
      // At once: the daemon needs Temporal, not the platform (it retries a platform that does not answer yet).
      const [platform] = await Promise.all([start('platform'), start('daemon')]);
      const banner = /^\s*endpoints\s+(.*)$/m.exec(platform.out())![1]!;
      return Object.fromEntries(banner.split(/\s+/).map((e) => e.split('=') as [string, string]));
    },
    async crash(...parts) {
      await Promise.all(parts.map(kill));
      // Temporal and the platform at once; the daemon once Temporal answers (it connects as it starts).
      await Promise.all([
        parts.includes('temporal') && temporal.server!.restart(),
        parts.includes('platform') && start('platform'),
      ]);
      if (parts.includes('daemon')) await start('daemon');
    },
    async stop(keep = false) {
      await Promise.all(Object.values(running).map((p) => p.stop()));
      await temporal.stop();
      if (!keep) return rmSync(dataDir, { recursive: true, force: true });
      mkdirSync(join(dataDir, 'logs'), { recursive: true });
      for (const { name, p } of started) writeFileSync(join(dataDir, 'logs', `${name}.log`), p.out());
      console.error(`the crash stack's data dir is kept: ${dataDir} (Temporal: temporal.sqlite; logs/)`);
    },
  };
}

/** Temporal in memory (the SDK's test environment) or the dev server on `dbFile`, with a client. */
async function crashTemporal(
  kind: 'memory' | 'file',
  dbFile: string,
): Promise<{ address: string; client: Client; server?: TemporalServer; stop(): Promise<void> }> {
  if (kind === 'memory') {
    const env = await temporalEnv();
    return { address: env.address, client: env.client, stop: () => env.teardown() };
  }
  const server = await startTemporalServer(dbFile, await freePort());
  const connection = await Connection.connect({ address: server.address });
  return {
    address: server.address,
    client: new Client({ connection }),
    server,
    async stop() {
      await connection.close().catch(() => undefined);
      await server.stop();
    },
  };
}
