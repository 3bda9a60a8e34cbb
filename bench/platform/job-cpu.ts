/**
 * CPU per job of the local platform and of real worker processes (the example `sleep` handler, `ms: 0`),
 * and the HTTP requests per job on each worker route. Issue 22's measure of what a short job costs.
 *
 *   npx tsx bench/platform/job-cpu.ts [--jobs N (2000)] [--workers W (4)] [--concurrency C (16)] [--json]
 *
 * RUNPOD_DEBUG_LEVEL is handed to the workers (their `job started`/`job finished` lines are INFO).
 * SLUICE_EXAMPLES_FROM_DIST=1 runs the compiled handler (`npm run build` first), else tsx's loader.
 * Per job: CPU of the worker processes (Linux /proc, all W of them), CPU of this process (the platform
 * and the client's /run and /status-sync), and requests by route (counted at the platform's server).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Server } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { exampleCommand } from '../../platform/control-plane/seed';
import { benchArgs, runBench } from '../main';
import { expectStatus, keepAlivePool, requestJson } from './http';
import { AUTH, startBenchPlatform } from './target';
import { saveEndpoint } from './workers';

const USAGE = `
Usage: npx tsx bench/platform/job-cpu.ts [options]
  --jobs N           jobs measured, after a warm-up of a tenth (default 2000)
  --workers W        sleep worker processes (default 4)
  --concurrency C    jobs in flight (default 16)
  --json             one JSON document
`;
const values = benchArgs(USAGE, {
  jobs: { type: 'string' },
  workers: { type: 'string' },
  concurrency: { type: 'string' },
  json: { type: 'boolean' },
});
const JOBS = Number(values.jobs ?? 2000);
const WORKERS = Number(values.workers ?? 4);
const CONCURRENCY = Number(values.concurrency ?? 16);

/** Requests by route (the path's second segment after the endpoint: run, job-take, job-done, ...). */
const requests = new Map<string, number>();
const emit = Server.prototype.emit;
Server.prototype.emit = function (this: Server, event: string, ...args: unknown[]): boolean {
  if (event === 'request') {
    const url = (args[0] as { url?: string }).url ?? '';
    const route = url.split('?')[0]!.split('/')[3] ?? url;
    requests.set(route, (requests.get(route) ?? 0) + 1);
  }
  return Reflect.apply(emit, this, [event, ...args]) as boolean;
} as typeof Server.prototype.emit;

/**
 * The example `sleep` worker; BENCH_WORKER_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=DIR`) go to its node, and
 * BENCH_SLEEP_WORKER names another compiled `sleep.js` to run (another checkout's build: a before/after pair).
 */
function workerCommand(): string[] {
  const [node, ...rest] = exampleCommand('sleep');
  const extra = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const other = process.env.BENCH_SLEEP_WORKER;
  return [node!, ...extra, ...(other ? [other] : rest)];
}

/** User and system CPU µs of the processes (Linux /proc, clock ticks of 10 ms). */
function cpuUsOf(pids: number[]): { user: number; system: number } {
  let user = 0;
  let system = 0;
  for (const pid of pids) {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    user += Number(fields[11]) * 10_000;
    system += Number(fields[12]) * 10_000;
  }
  return { user, system };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-jobcpu-'));
  const platform = await startBenchPlatform(dataDir);
  const ep = 'jobcpusleep0001';
  const env: Record<string, string> = process.env.RUNPOD_DEBUG_LEVEL
    ? { RUNPOD_DEBUG_LEVEL: process.env.RUNPOD_DEBUG_LEVEL }
    : {};
  saveEndpoint(platform, { id: ep, command: workerCommand(), env, workers: WORKERS });
  const client = keepAlivePool(platform.url, CONCURRENCY);
  const job = async (): Promise<void> => {
    const run = await requestJson(client, 'POST', `/v2/${ep}/run`, { body: { input: { ms: 0 } }, headers: AUTH });
    expectStatus('run', run);
    const id = (run.body as { id: string }).id;
    const st = await requestJson(client, 'GET', `/v2/${ep}/status-sync/${id}?wait=30000`, { headers: AUTH });
    expectStatus('status-sync', st);
    if ((st.body as { status?: string }).status !== 'COMPLETED') throw new Error(JSON.stringify(st.body));
  };
  const runJobs = async (n: number): Promise<void> => {
    let left = n;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) await job();
      }),
    );
  };
  try {
    const deadline = Date.now() + 60_000;
    while (platform.pool.podsOf(ep).filter((p) => p.phase === 'ready').length < WORKERS) {
      if (Date.now() > deadline) throw new Error('workers not ready in 60 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    await runJobs(Math.max(50, JOBS / 10)); // warmup
    const pids = platform.pool
      .podsOf(ep)
      .map((p) => p.proc?.pid)
      .filter((p): p is number => p !== undefined);
    requests.clear();
    const load = loadavg()[0]!;
    const w0 = cpuUsOf(pids);
    const p0 = process.cpuUsage();
    const t0 = performance.now();
    await runJobs(JOBS);
    const wall = performance.now() - t0;
    const p1 = process.cpuUsage(p0);
    const w1 = cpuUsOf(pids);
    const out = {
      jobs: JOBS,
      workers: WORKERS,
      concurrency: CONCURRENCY,
      fromDist: process.env.SLUICE_EXAMPLES_FROM_DIST === '1',
      jobsPerSec: Math.round((JOBS / wall) * 1000),
      workerCpuUsPerJob: Math.round((w1.user + w1.system - w0.user - w0.system) / JOBS),
      workerSystemCpuUsPerJob: Math.round((w1.system - w0.system) / JOBS),
      platformAndClientCpuUsPerJob: Math.round((p1.user + p1.system) / JOBS),
      platformAndClientSystemCpuUsPerJob: Math.round(p1.system / JOBS),
      requestsPerJob: Object.fromEntries([...requests].map(([k, v]) => [k, +(v / JOBS).toFixed(3)])),
      loadAverage: [load, loadavg()[0]!].map((x) => +x.toFixed(2)),
    };
    console.log(values.json ? JSON.stringify(out) : out);
  } finally {
    await client.close();
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
