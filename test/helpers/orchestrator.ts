import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { temporalBinary } from '../../common/tools';
import { JobClient } from '../../client/job';
import { type PlatformOptions } from '../../platform';
import { loadConfig } from '../../worker/config';
import { startDaemon, type Daemon, type DaemonOptions } from '../../worker/daemon';
import { testPlatform } from './platform';
import { startS3Server } from './s3';
import { parseS3Url } from '../../results/store/s3-url';

/**
 * A real Temporal dev server (the project's `temporal` binary) for a test file: in memory, or on
 * the SQLite file `dbFilename` as the embedded default runs it (benchmarks).
 */
export function temporalEnv(dbFilename?: string): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: temporalBinary() },
      ...(dbFilename ? { dbFilename } : {}),
      extraArgs: [
        '--sqlite-pragma',
        'journal_mode=WAL',
        '--sqlite-pragma',
        `synchronous=${dbFilename ? 'NORMAL' : 'OFF'}`,
        '--log-level',
        'error',
      ],
    },
  });
}

/** Daemon environment for a platform and a Temporal server. */
export function daemonEnv(
  p: { url: string; apiKey: string },
  temporalAddress: string,
  resultsDir: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: temporalAddress,
    SLUICE_QUEUE_URL: `${p.url}/v2`,
    SLUICE_API_KEY: p.apiKey,
    SLUICE_RESULTS_DIR: resultsDir,
    SLUICE_DAEMON_PORT: '0',
    SLUICE_WEBHOOK_FALLBACK_MS: '2000',
    SLUICE_SHUTDOWN_GRACE_MS: '1000',
    SLUICE_TEMPORAL_METRICS_PORT: '0',
    // Tests' batch files live in temp directories.
    SLUICE_BATCH_ROOTS: [process.cwd(), tmpdir()].join(','),
    ...extra,
  };
}

/** Options of {@link orchestratorStack}. */
export interface StackOptions {
  platform?: PlatformOptions;
  daemon?: Record<string, string> | ((p: { url: string }) => Promise<Record<string, string>>);
  rateBudget?: DaemonOptions['rateBudget'];
  /**
   * The results store as SLUICE_RESULTS_URL (e.g. an `s3://` URL of test/helpers/s3.ts), with the
   * AWS variables it needs: set in this process (the daemon runs here) until `dispose()`.
   * @default a temp directory (SLUICE_RESULTS_DIR)
   */
  results?: { url: string; env?: Record<string, string> };
  /**
   * Temporal's persistence: a SQLite file, as the embedded default (`npm start`) uses (benchmarks).
   * @default in memory
   */
  temporalDbFile?: string;
  /**
   * A Temporal server to use instead of starting one (a file whose tests each need a stack of their own, e.g. a
   * platform option per test, shares one server: test/faults/helpers.ts `sharedTemporal`). Left running by `dispose()`.
   */
  temporal?: TestWorkflowEnvironment;
}

/** Temporal + platform + daemon + client, all real, for one test file. */
export async function orchestratorStack(options: StackOptions = {}) {
  // SLUICE_TEST_RESULTS=s3: every stack without its own `results` runs on a MinIO bucket of its own.
  const s3 = !options.results && process.env.SLUICE_TEST_RESULTS === 's3' ? await startS3Server() : undefined;
  if (s3) options = { ...options, results: { url: s3.url('results'), env: s3.env } };
  const restoreEnv = setEnv(options.results?.env ?? {});
  // Temporal and the platform at once (neither needs the other); one that fails stops the other.
  const own = !options.temporal;
  const [temporal, started] = await Promise.allSettled([
    options.temporal ?? temporalEnv(options.temporalDbFile),
    testPlatform(options.platform),
  ]);
  if (temporal.status === 'rejected' || started.status === 'rejected') {
    if (temporal.status === 'fulfilled' && own) await temporal.value.teardown();
    if (started.status === 'fulfilled') await started.value.dispose();
    restoreEnv();
    await s3?.stop();
    throw temporal.status === 'rejected' ? temporal.reason : (started as PromiseRejectedResult).reason;
  }
  const [env, platform] = [temporal.value, started.value];
  const resultsDir = mkdtempSync(join(tmpdir(), 'sluice-results-'));
  const resultsUrl = options.results?.url ?? resultsDir;
  // The daemon's extra settings may depend on the platform's URL (e.g. a proxy in front of it).
  const extra = typeof options.daemon === 'function' ? await options.daemon(platform) : options.daemon;
  const config = loadConfig(
    daemonEnv(platform, env.address, resultsDir, {
      ...(options.results ? { SLUICE_RESULTS_URL: options.results.url } : {}),
      // A bucket of the results store holds the tests' s3:// inputs and outputs too.
      ...(options.results?.url.startsWith('s3://')
        ? { SLUICE_BATCH_ROOTS: [process.cwd(), tmpdir(), `s3://${parseS3Url(options.results.url).bucket}`].join(',') }
        : {}),
      ...extra,
    }),
  );
  const rateBudget = options.rateBudget ? { rateBudget: options.rateBudget } : {};
  let daemon: Daemon = await startDaemon({
    config,
    connection: env.nativeConnection,
    client: env.client,
    logger: pino({ level: process.env.SLUICE_TEST_LOG ?? 'silent' }),
    ...rateBudget,
  });
  const sluice = new JobClient({ client: env.client, resultsDir, resultsUrl });
  return {
    /** `resultsUrl`: the store the daemon uses (`resultsDir` unless `results` was given). */
    env,
    platform,
    sluice,
    resultsDir,
    resultsUrl,
    config,
    get daemon() {
      return daemon;
    },
    /** Replaces the in-process daemon (after stopping it). */
    async restartDaemon() {
      await daemon.close();
      daemon = await startDaemon({
        config,
        connection: env.nativeConnection,
        client: env.client,
        logger: pino({ level: 'silent' }),
        ...rateBudget,
      });
    },
    async dispose() {
      await daemon.close().catch(() => undefined);
      await platform.dispose();
      await sluice.close();
      if (own) await env.teardown();
      rmSync(resultsDir, { recursive: true, force: true });
      await s3?.stop();
      restoreEnv();
    },
  };
}

/** Sets variables of this process; returns what restores them. */
function setEnv(vars: Record<string, string>): () => void {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  return () => {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}
