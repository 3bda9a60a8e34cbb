/** The stack a crash test SIGKILLs and starts again on the same state: Temporal, and the platform and the daemon as `sluice` processes. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll } from 'vitest';
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
  /** Starts `sluice platform` (on the stack's port and data dir) and `sluice worker` (on the task queue); resolves to the platform's example endpoints' ids by name. */
  start(): Promise<Record<string, string>>;
  /**
   * SIGKILLs `parts` at once (a `sluice` process itself: the platform's reaper ends its worker pods;
   * Temporal's whole group), then starts them again on the same state and ports, Temporal first,
   * the daemon last; resolves once each answers again. `temporal` needs `temporal: 'file'`.
   */
  crash(...parts: CrashPart[]): Promise<void>;
  /** Stops what still runs (SIGTERM: the platform stops its pods), then Temporal, and removes the data dir. */
  stop(): Promise<void>;
}

/** A crash test file's stack ({@link startCrashStack}), started in beforeAll and stopped in afterAll. */
export function crashStack(options: CrashStackOptions): { readonly s: CrashStack } {
  const ctx = {} as { s: CrashStack };
  beforeAll(async () => {
    ctx.s = await startCrashStack(options);
  });
  afterAll(() => ctx.s?.stop());
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
  const start = async (part: 'platform' | 'daemon'): Promise<SluiceProcess> =>
    (running[part] =
      part === 'platform'
        ? await startSluice(
            ['platform', '--port', String(port), '--data-dir', dataDir, '--api-key', key],
            { SLUICE_LOG_LEVEL: 'warn' },
            /endpoints\s/,
          )
        : await startSluice(
            ['worker'],
            {
              ...daemonEnv({ url: platformUrl, apiKey: key }, temporal.address, resultsDir),
              SLUICE_LOG_LEVEL: 'warn',
              SLUICE_TASK_QUEUE: options.taskQueue,
              SLUICE_DAEMON_PORT: String(await freePort()),
            },
            /sluice worker running/,
          ));
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
      const banner = /^\s*endpoints\s+(.*)$/m.exec((await start('platform')).out())![1]!;
      await start('daemon');
      return Object.fromEntries(banner.split(/\s+/).map((e) => e.split('=') as [string, string]));
    },
    async crash(...parts) {
      await Promise.all(parts.map(kill));
      if (parts.includes('temporal')) await temporal.server!.restart();
      if (parts.includes('platform')) await start('platform');
      if (parts.includes('daemon')) await start('daemon');
    },
    async stop() {
      await Promise.all(Object.values(running).map((p) => p.stop()));
      await temporal.stop();
      rmSync(dataDir, { recursive: true, force: true });
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
