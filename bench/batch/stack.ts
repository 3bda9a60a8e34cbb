/**
 * The in-process stack of the batch and pipeline benchmarks: the Temporal dev server on a SQLite file,
 * the platform in this process (rate limits off unless asked), warm endpoints, the daemon as its own
 * process (so its RSS is its own), and what they measure: RSS, HTTP calls, history events.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { request } from 'undici';
import { temporalBinary } from '../../common/tools';
import { startPlatform, type Platform } from '../../platform';
import { type NewEndpoint } from '../../platform/control-plane/registry';

const bin = join(__dirname, '..', '..', 'bin', 'sluice.cjs');
const silent = pino({ level: 'silent' });

/** Peak and current RSS (MB) of a process, from /proc. */
export function rssOf(pid: number): { peak: number; now: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) / 1024;
  return { peak: Math.round(kb('VmHWM')), now: Math.round(kb('VmRSS')) };
}

/** Samples a process's RSS every `everyMs`: the highest seen, and each sample to `onSample`. */
export function rssSampler(pid: number, everyMs = 500, onSample?: (mb: number) => void) {
  const s = { max: 0, stop: () => clearInterval(timer) };
  const timer = setInterval(() => {
    const mb = rssOf(pid).now;
    s.max = Math.max(s.max, mb);
    onSample?.(mb);
  }, everyMs);
  return s;
}

/** The Temporal dev server with the embedded default's persistence: a SQLite file in `dir`. */
export function temporalEnv(dir: string): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: temporalBinary() },
      dbFilename: join(dir, 'temporal.sqlite'),
      extraArgs: [
        '--sqlite-pragma',
        'journal_mode=WAL',
        '--sqlite-pragma',
        'synchronous=NORMAL',
        '--log-level',
        'error',
      ],
    },
  });
}

/** The platform in this process, no cold start; the spec's rate limits only when `limited`. */
export function benchPlatform(dataDir: string, limited = false): Promise<Platform> {
  return startPlatform({
    port: 0,
    dataDir,
    apiKey: 'bench',
    logger: silent,
    ...(limited ? {} : { rateLimits: { enabled: false } }),
    pods: { coldStartMs: 0, flashBootColdStartMs: 0 },
  });
}

/** Saves `endpoint` with exactly `workers` workers and waits until they are all idle. */
export async function warmEndpoint(platform: Platform, endpoint: NewEndpoint, workers: number): Promise<string> {
  const ep = platform.registry.saveEndpoint({ ...endpoint, workersMin: workers, workersMax: workers });
  while (platform.pool.workerCounts(ep.id).idle < workers) await new Promise((r) => setTimeout(r, 100));
  return ep.id;
}

/** The daemon's environment on this stack: results store and batch roots under `dir`, limits lifted when unlimited. */
export function daemonEnv(
  o: { temporal: string; platform: Platform; dir: string; port: number; taskQueue: string; limited?: boolean },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: o.temporal,
    SLUICE_QUEUE_URL: `${o.platform.url}/v2`,
    SLUICE_API_KEY: o.platform.apiKey,
    SLUICE_RESULTS_DIR: join(o.dir, 'results'),
    // The inputs and output folders are in the bench's own folder, outside the daemon's cwd.
    SLUICE_BATCH_ROOTS: o.dir,
    SLUICE_DAEMON_PORT: String(o.port),
    SLUICE_TEMPORAL_METRICS_PORT: '0',
    SLUICE_TASK_QUEUE: o.taskQueue,
    // Unlimited platform: let the client's budget go far above the spec's base rate.
    ...(o.limited ? {} : { SLUICE_RATE_SCALE: '10' }),
    ...extra,
  };
}

/** A `sluice worker` process, started and running; `stop` sends SIGTERM and waits for its exit. */
export async function daemonProcess(
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<{ child: ChildProcess; metricsUrl: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [...nodeArgs, bin, 'worker'], {
    env: { ...process.env, SLUICE_LOG_LEVEL: 'warn', SLUICE_LOG_PRETTY: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  for (let i = 0; !out.includes('sluice worker running'); i++) {
    if (i > 600 || child.exitCode !== null) throw new Error(`daemon did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    metricsUrl: `http://127.0.0.1:${env.SLUICE_DAEMON_PORT}/metrics`,
    stop: () =>
      new Promise<void>((r) => {
        if (child.exitCode !== null) return r();
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
  };
}

/** CPU seconds (user + system, every thread) a process has used so far, from /proc. */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ, 100 on Linux)
}

/**
 * CPU seconds so far of every part of the stack: this process (the platform and the client), the
 * daemon (`daemonPid` and its threads), the Temporal server, and the workers (every other process
 * this one started, the pods' handlers: their children too). From /proc; processes that exited are
 * not counted (the pods of a bench run live through it).
 */
export function stackCpuSeconds(daemonPid: number): {
  bench: number;
  daemon: number;
  temporal: number;
  workers: number;
} {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const under = (pid: number, root: number): boolean => {
    for (let p: number | undefined = pid, n = 0; p !== undefined && p > 1 && n < 64; p = parent.get(p), n++)
      if (p === root) return true;
    return false;
  };
  const usage = process.cpuUsage();
  const out = { bench: (usage.user + usage.system) / 1e6, daemon: 0, temporal: 0, workers: 0 };
  for (const pid of parent.keys()) {
    if (pid === process.pid || !under(pid, process.pid)) continue;
    let cpu: number;
    let cmd: string;
    try {
      cpu = cpuSecondsOf(pid);
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (under(pid, daemonPid)) out.daemon += cpu;
    else if (/temporal/.test(cmd.split('\0')[0] ?? '')) out.temporal += cpu;
    else out.workers += cpu;
  }
  return out;
}

/** The daemon's results store calls so far by operation (`sluice_store_requests_total{op}`: open, fsync, ...). */
export async function storeOps(metricsUrl: string): Promise<Record<string, number>> {
  const text = await (await request(metricsUrl)).body.text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^sluice_store_requests_total\{[^}]*op="([^"]+)"[^}]*\} (\d+)/gm))
    out[m[1]!] = (out[m[1]!] ?? 0) + Number(m[2]);
  return out;
}

/** The daemon's `sluice_http_calls_total` by `operation:outcome`. */
export async function httpCalls(metricsUrl: string): Promise<Record<string, number>> {
  const text = await (await request(metricsUrl)).body.text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^sluice_http_calls_total\{operation="([^"]+)",outcome="([^"]+)"\} (\d+)/gm))
    out[`${m[1]}:${m[2]}`] = (out[`${m[1]}:${m[2]}`] ?? 0) + Number(m[3]);
  return out;
}

/** The calls made between two readings of {@link httpCalls}, and their total. */
export function callsBetween(
  before: Record<string, number>,
  after: Record<string, number>,
): { calls: Record<string, number>; total: number } {
  const calls: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) if (v - (before[k] ?? 0) > 0) calls[k] = v - (before[k] ?? 0);
  return { calls, total: Object.values(calls).reduce((a, b) => a + b, 0) };
}

/** History events of a workflow id's chain of runs (continue-as-new), summed. */
export async function historyEvents(
  client: Client,
  id: string,
): Promise<{ events: number; runs: number; byType: Record<string, number> }> {
  let events = 0;
  let runs = 0;
  const byType: Record<string, number> = {};
  const d = await client.workflow.getHandle(id).describe();
  for (let runId: string | undefined = d.raw.workflowExecutionInfo?.firstRunId || d.runId; runId; runs++) {
    const h = await client.workflow.getHandle(id, runId).fetchHistory();
    events += h.events?.length ?? 0;
    for (const e of h.events ?? []) {
      const type = eventTypeName(e.eventType);
      byType[type] = (byType[type] ?? 0) + 1;
    }
    runId = h.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return { events, runs, byType };
}

/** An event type's short name (`ACTIVITY_TASK_SCHEDULED`), from its enum number. */
function eventTypeName(t: unknown): string {
  const name = typeof t === 'number' ? (temporal.api.enums.v1.EventType[t] ?? String(t)) : String(t);
  return name.replace(/^EVENT_TYPE_/, '');
}

/** One point of a memory curve: inputs done, the daemon's RSS, JS heap used and external memory (MB). */
export interface MemoryPoint {
  atS: number;
  done: number;
  rssMb: number;
  heapMb: number;
  externalMb: number;
  load: number;
}

/**
 * Samples the daemon's memory every `everyMs` against `done()` (inputs done so far), logging each
 * point to stderr as it goes (a long run shows its curve before it ends); `curve` keeps the first
 * point at or past each of `marks` inputs, and the last.
 */
export function memoryCurve(o: {
  pid: number;
  metricsUrl: string;
  done: () => Promise<number>;
  marks: number[];
  everyMs?: number;
  log?: (p: MemoryPoint) => void;
}) {
  const t0 = Date.now();
  const points: MemoryPoint[] = [];
  let busy = false;
  const sample = async () => {
    const text = await (await request(o.metricsUrl)).body.text();
    const metric = (name: string) =>
      Number(new RegExp(`^sluice_${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? 0);
    const mb = (b: number) => Math.round(b / 1048576);
    const p: MemoryPoint = {
      atS: Math.round((Date.now() - t0) / 1000),
      done: await o.done(),
      rssMb: rssOf(o.pid).now,
      heapMb: mb(metric('nodejs_heap_size_used_bytes')),
      externalMb: mb(metric('nodejs_external_memory_bytes')),
      load: +loadavg()[0]!.toFixed(1),
    };
    points.push(p);
    (o.log ?? ((x: MemoryPoint) => console.error(JSON.stringify(x))))(p);
  };
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    sample()
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, o.everyMs ?? 5000);
  return {
    points,
    stop: () => clearInterval(timer),
    /** The first point at or past each mark, and the last point. */
    curve(): MemoryPoint[] {
      const out = o.marks.map((m) => points.find((p) => p.done >= m)).filter((p): p is MemoryPoint => !!p);
      const last = points.at(-1);
      if (last && out.at(-1) !== last) out.push(last);
      return out;
    },
  };
}
