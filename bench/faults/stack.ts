/** bench/faults' stack: `sluice platform --faults` and `sluice worker` as processes (so either can be SIGKILLed and restarted), on one Temporal dev server. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { stopProcessGroup } from '../../common/process';
import { daemonEnv } from '../../test/helpers/orchestrator';
import { call, eventually, freePort } from '../../test/helpers/platform';
import { startDaemon, type DaemonProcess } from '../multi/procs';

const bin = join(__dirname, '..', '..', 'bin', 'sluice.cjs');
const API_KEY = 'bench-faults';

/** A `sluice platform` process: its URL, the example echo endpoint, SIGKILL and restart on the same port and data dir. */
export interface PlatformProcess {
  url: string;
  apiKey: string;
  echoId: string;
  /** The faults the platform applied so far, by kind (its `fault` log lines, across restarts). */
  applied: Record<string, number>;
  /** SIGKILLs the platform process (its pods are reaped by their watchdog), then starts it again; `killed` is called in between. */
  killAndRestart(killed?: () => void): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `sluice platform` on a free port in `dataDir` with the fault spec `faults` (none: fault-free) and `workers` echo workers up. */
export async function platformProcess(dataDir: string, faults: string, workers: number): Promise<PlatformProcess> {
  const port = await freePort();
  const args = ['platform', '--port', String(port), '--data-dir', dataDir, '--api-key', API_KEY];
  if (faults) args.push('--faults', faults);
  const applied: Record<string, number> = {};
  const onLine = (line: string): void => {
    const kind = /"fault":"([^"]+)"/.exec(line)?.[1];
    if (kind && line.includes('"msg":"fault"')) applied[kind] = (applied[kind] ?? 0) + 1;
  };
  // Debug: the level of the platform's one line per applied fault. Its pods run the compiled echo
  // handler (dist/, as the tests' stack tier does): through tsx's loader, eight pods booting again
  // after the platform's SIGKILL took three times the CPU, and the bench measured tsx.
  const env = { SLUICE_LOG_LEVEL: 'debug', SLUICE_EXAMPLES_FROM_DIST: '1' };
  let proc = await spawnReady(args, env, /endpoints\s/, onLine);
  const url = `http://127.0.0.1:${port}`;
  const echoId = /echo=(\S+)/.exec(proc.out())![1]!;
  // REST is outside the faults' default `apis`: the update is answered at once.
  const patched = await call(url, 'PATCH', `/v1/endpoints/${echoId}`, {
    key: API_KEY,
    body: { workersMin: workers, workersMax: workers },
  });
  if (patched.status !== 200) throw new Error(`endpoint update: ${patched.status} ${JSON.stringify(patched.body)}`);
  await idleWorkers(url, echoId, workers);
  return {
    url,
    apiKey: API_KEY,
    echoId,
    applied,
    async killAndRestart(killed) {
      await sigkill(proc.child);
      killed?.();
      proc = await spawnReady(args, env, /endpoints\s/, onLine);
    },
    stop: () => stopProcessGroup(proc.child, 5000),
  };
}

/**
 * The platform's own count of the jobs it holds for the endpoint (`/health`, itself a queue call
 * the faults apply to: asked again until answered).
 */
export async function platformJobCounts(p: PlatformProcess): Promise<Record<string, number>> {
  const counts = await eventually(async () => {
    const r = await call(p.url, 'GET', `/v2/${p.echoId}/health`, { key: p.apiKey });
    return r.status === 200 ? (r.body.jobs as Record<string, number>) : undefined;
  }, 60_000);
  return counts!;
}

async function idleWorkers(url: string, echoId: string, n: number): Promise<void> {
  await eventually(async () => {
    const r = await call(url, 'GET', `/v2/${echoId}/health`, { key: API_KEY });
    return r.status === 200 && (r.body.workers?.idle ?? 0) >= n;
  }, 120_000);
}

/** A `sluice worker` process that can be SIGKILLed and restarted with the same settings. */
export interface DaemonHandle {
  /** The running daemon's /metrics. */
  metricsUrl(): string;
  /** SIGKILLs the daemon process, then starts another with the same settings; `killed` is called in between. */
  killAndRestart(killed?: () => void): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the daemon against `p` on task queue `taskQueue`, its settings those of a daemon in
 * production (no test-short webhook fallback). `unreachable`: its public URL is a closed port, so
 * every webhook the service sends is lost (a daemon behind NAT).
 */
export async function daemonProcess(
  p: PlatformProcess,
  temporalAddress: string,
  resultsDir: string,
  taskQueue: string,
  unreachable: boolean,
): Promise<DaemonHandle> {
  const env = async (): Promise<Record<string, string>> => {
    // The test helper's settings, without its short fallback: the bench measures the daemon's defaults.
    const { SLUICE_WEBHOOK_FALLBACK_MS: _fallback, ...base } = daemonEnv(p, temporalAddress, resultsDir);
    return {
      ...base,
      SLUICE_TASK_QUEUE: taskQueue,
      SLUICE_DAEMON_PORT: String(await freePort()),
      ...(unreachable ? { SLUICE_PUBLIC_URL: `http://127.0.0.1:${await freePort()}` } : {}),
      // SLUICE_BENCH_LOG_DIR: each row's daemons' output (at SLUICE_BENCH_LOG_LEVEL, default info) in <dir>/<task queue>.log.
      ...(process.env.SLUICE_BENCH_LOG_DIR
        ? {
            SLUICE_BENCH_LOG: join(process.env.SLUICE_BENCH_LOG_DIR, `${taskQueue}.log`),
            SLUICE_LOG_LEVEL: process.env.SLUICE_BENCH_LOG_LEVEL ?? 'info',
          }
        : {}),
    };
  };
  let d: DaemonProcess = await startDaemon(taskQueue, await env());
  return {
    metricsUrl: () => d.metricsUrl,
    async killAndRestart(killed) {
      await sigkill(d.child);
      await d.stop();
      killed?.();
      d = await startDaemon(taskQueue, await env());
    },
    stop: () => d.stop(),
  };
}

/** SIGKILLs the process itself (not its group: a crash), resolving once it is gone. */
async function sigkill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await gone;
}

/**
 * Spawns `sluice <args>` in its own process group; resolves once `ready` shows in its output. Each
 * line of output goes to `onLine`; only the first 16 kB are kept (the banner).
 */
async function spawnReady(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  onLine: (line: string) => void = () => undefined,
): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, SLUICE_LOG_LEVEL: 'warn', SLUICE_LOG_PRETTY: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  const take = (stream: NodeJS.ReadableStream): void => {
    let rest = '';
    stream.on('data', (d: Buffer) => {
      const text = rest + d.toString();
      const lines = text.split('\n');
      rest = lines.pop()!;
      for (const l of lines) onLine(l);
      if (out.length < 16_384) out += d.toString();
    });
  };
  take(child.stdout!);
  take(child.stderr!);
  try {
    await eventually(() => {
      if (child.exitCode !== null) throw new Error(`sluice ${args[0]} exited: ${out.slice(-2000)}`);
      return ready.test(out);
    }, 60_000);
  } catch (err) {
    await stopProcessGroup(child, 2000);
    throw err;
  }
  return { child, out: () => out };
}
