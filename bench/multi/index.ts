/**
 * bench/multi: the bulk batch with 1, 2, 3... daemon processes on one task queue, against one
 * Temporal dev server (SQLite file) and one platform: jobs/s per N and the factor per added daemon,
 * each daemon's share of the submissions, CPU and RSS, the CPU of every other process (where the
 * bottleneck is), and the results store's cost per job.
 *
 *   npx tsx bench/multi/index.ts [--daemons 1,2,3] [--jobs 10000] [--batches 1,6] [--concurrency 64] [--workers 8] [--store dir|s3] [--json]
 *
 * One bulk batch runs on one daemon at a time (Temporal keeps a run, and by eager dispatch its
 * steps, on the daemon that has it), so the jobs are split over `--batches` batches started at
 * once; Temporal places each batch on a daemon.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { temporalEnv } from '../batch/stack';
import { BatchClient } from '../../client/batch';
import { startPlatform } from '../../platform';
import { freePort } from '../../test/helpers/platform';
import { startS3Server, type S3Server } from '../../test/helpers/s3';
import {
  counters,
  cpuSeconds,
  descendants,
  diskWriteBytes,
  load1,
  rssMb,
  startDaemon,
  treeSize,
  type DaemonProcess,
} from './procs';
import { runBench } from '../main';

const { values } = parseArgs({
  options: {
    daemons: { type: 'string' },
    jobs: { type: 'string' },
    batches: { type: 'string' },
    concurrency: { type: 'string' },
    workers: { type: 'string' },
    store: { type: 'string' },
    json: { type: 'boolean' },
  },
});
const DAEMONS = (values.daemons ?? '1,2,3').split(',').map(Number);
const JOBS = Number(values.jobs ?? 10_000);
const BATCHES = (values.batches ?? '6').split(',').map(Number);
const CONCURRENCY = Number(values.concurrency ?? 64);
const WORKERS = Number(values.workers ?? 8);
const STORE = values.store ?? 'dir';
if (
  !['dir', 's3'].includes(STORE) ||
  DAEMONS.some((n) => !Number.isInteger(n) || n < 1) ||
  !(JOBS > 0) ||
  BATCHES.some((b) => !Number.isInteger(b) || b < 1)
) {
  console.error(
    'usage: bench/multi/index.ts [--daemons 1,2,3] [--jobs N] [--batches B,...] [--concurrency C] [--workers W] [--store dir|s3] [--json]',
  );
  process.exit(2);
}
const round = (x: number, d = 1) => +x.toFixed(d);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-multi-'));
  const env = await temporalEnv(dir);
  const platform = await startPlatform({
    port: 0,
    dataDir: join(dir, 'platform'),
    apiKey: 'bench',
    logger: pino({ level: 'silent' }),
    rateLimits: { enabled: false },
    pods: { coldStartMs: 0, flashBootColdStartMs: 0 },
  });
  // `--store s3`: MinIO; the daemons and this process's client reach it through the AWS variables.
  const s3: S3Server | undefined = STORE === 's3' ? await startS3Server({ bucket: 'bench-multi' }) : undefined;
  if (s3) Object.assign(process.env, s3.env);
  const daemons: DaemonProcess[] = [];
  const rows: Record<string, unknown>[] = [];
  const loadAtStart = load1();
  // The Temporal dev server (found by its database file among this process's descendants).
  let temporalPids: number[] = [];
  try {
    const echo = platform.registry.saveEndpoint({
      ...platform.examples.echo!,
      workersMin: WORKERS,
      workersMax: WORKERS,
    });
    while (platform.pool.workerCounts(echo.id).idle < WORKERS) await new Promise((r) => setTimeout(r, 100));
    temporalPids = descendants(process.pid, /temporal\.sqlite/);
    for (const n of DAEMONS) {
      // A task queue, a results store and output folders per N: nothing of the previous N counts.
      const taskQueue = `bench-multi-${n}`;
      const storeDir = join(dir, `results-${n}`);
      const storeEnv: Record<string, string> = s3
        ? { SLUICE_RESULTS_URL: s3.url(`results-${n}`), ...s3.env }
        : { SLUICE_RESULTS_DIR: storeDir };
      const outOf = (name: string) => (s3 ? s3.url(`out-${n}/${name}`) : join(dir, `out-${n}`, name));
      const started = await Promise.all(
        Array.from({ length: n }, async (_, k) => {
          const port = await freePort();
          return startDaemon(`d${k + 1}`, {
            TEMPORAL_ADDRESS: env.address,
            SLUICE_QUEUE_URL: `${platform.url}/v2`,
            SLUICE_API_KEY: platform.apiKey,
            SLUICE_TASK_QUEUE: taskQueue,
            SLUICE_DAEMON_PORT: String(port),
            SLUICE_PUBLIC_URL: `http://127.0.0.1:${port}`,
            SLUICE_WEBHOOK_SECRET: 'bench-multi-shared-secret',
            SLUICE_TEMPORAL_METRICS_PORT: '0',
            SLUICE_RATE_SCALE: '10',
            ...storeEnv,
          });
        }),
      );
      daemons.push(...started);
      const batch = new BatchClient({
        client: env.client,
        taskQueue,
        resultsUrl: s3 ? s3.url(`results-${n}`) : storeDir,
      });
      const runBatches = async (name: string, total: number, count: number) => {
        const per = Math.ceil(total / count);
        return Promise.all(
          Array.from({ length: count }, async (_, b) => {
            const size = Math.min(per, total - b * per);
            const file = join(dir, `${name}-${n}-${b}.jsonl`);
            writeFileSync(file, Array.from({ length: size }, (_, i) => `{"i":${i}}\n`).join(''));
            const id = await batch.start({
              id: `${name}-${n}-${b}`,
              endpointId: echo.id,
              source: file,
              outDir: outOf(`${name}-${b}`),
              options: { concurrency: CONCURRENCY },
            });
            const s = await batch.result(id);
            if ((s.counts.byStatus.COMPLETED ?? 0) !== size)
              throw new Error(`${id}: ${JSON.stringify(s.counts.byStatus)} of ${size}`);
          }),
        );
      };
      await runBatches('warmup', 50 * Math.max(n, ...BATCHES), Math.max(n, ...BATCHES));
      for (const batches of BATCHES) {
        const name = `bulk${batches}`;
        const storeBefore = s3 ? undefined : treeSize(storeDir);
        const opsBefore = await Promise.all(started.map((d) => counters(d.metricsUrl, 'sluice_store_requests_total')));
        const bytesBefore = await Promise.all(started.map((d) => counters(d.metricsUrl, 'sluice_store_bytes_total')));
        const runsBefore = await Promise.all(started.map((d) => counters(d.metricsUrl, 'sluice_http_calls_total')));
        const pods = descendants(process.pid, /handlers\/echo\.ts/);
        const disk0 = started.map((d) => diskWriteBytes(d.pid));
        const cpu0 = {
          daemons: started.map((d) => cpuSeconds(d.pid)),
          temporal: temporalPids.reduce((a, p) => a + cpuSeconds(p), 0),
          pods: pods.reduce((a, p) => a + cpuSeconds(p), 0),
          bench: process.cpuUsage(),
        };
        const rssMax = started.map(() => 0);
        const sampler = setInterval(
          () => started.forEach((d, k) => (rssMax[k] = Math.max(rssMax[k]!, rssMb(d.pid).now))),
          500,
        );
        const load0 = load1();
        const t0 = Date.now();
        await runBatches(name, JOBS, batches);
        const wallS = (Date.now() - t0) / 1000;
        clearInterval(sampler);
        const benchCpu = process.cpuUsage(cpu0.bench);
        const diskWritten = started.reduce((a, d, k) => a + diskWriteBytes(d.pid) - disk0[k]!, 0);
        const cpu = {
          daemons: started.map((d, k) => cpuSeconds(d.pid) - cpu0.daemons[k]!),
          temporal: temporalPids.reduce((a, p) => a + cpuSeconds(p), 0) - cpu0.temporal,
          pods: pods.reduce((a, p) => a + cpuSeconds(p), 0) - cpu0.pods,
          bench: (benchCpu.user + benchCpu.system) / 1e6,
        };
        const runs = await Promise.all(
          started.map(async (d, k) => {
            const after = await counters(d.metricsUrl, 'sluice_http_calls_total');
            const sum = (c: Record<string, number>) =>
              Object.entries(c)
                .filter(([l]) => l.includes('operation="run"'))
                .reduce((a, [, v]) => a + v, 0);
            return sum(after) - sum(runsBefore[k]!);
          }),
        );
        const delta = async (name: string, before: Record<string, number>[]) => {
          const out: Record<string, number> = {};
          for (const [k, d] of started.entries())
            for (const [l, v] of Object.entries(await counters(d.metricsUrl, name)))
              out[l] = (out[l] ?? 0) + v - (before[k]![l] ?? 0);
          return out;
        };
        const ops = await delta('sluice_store_requests_total', opsBefore);
        const bytes = await delta('sluice_store_bytes_total', bytesBefore);
        const storeAfter = s3 ? undefined : treeSize(storeDir);
        const outBatches = Array.from({ length: batches }, (_, b) => treeSize(join(dir, `out-${n}`, `${name}-${b}`)));
        const out = s3 ? undefined : outBatches.reduce((a, t) => a + t.bytes, 0);
        const totalCpu = cpu.daemons.reduce((a, b) => a + b, 0) + cpu.temporal + cpu.pods + cpu.bench;
        rows.push({
          daemons: n,
          jobs: JOBS,
          batches,
          wallS: round(wallS),
          jobsPerSecond: round(JOBS / wallS),
          loadAverage: { before: load0, after: load1() },
          perDaemon: started.map((d, k) => ({
            name: d.name,
            shareOfRuns: round(runs[k]! / JOBS, 3),
            cpuS: round(cpu.daemons[k]!),
            cpuPct: round((100 * cpu.daemons[k]!) / wallS),
            rssPeakMb: rssMb(d.pid).peak,
            rssMaxSampledMb: rssMax[k],
          })),
          cpuPctOfWall: {
            daemons: round((100 * cpu.daemons.reduce((a, b) => a + b, 0)) / wallS),
            temporal: round((100 * cpu.temporal) / wallS),
            platformAndClient: round((100 * cpu.bench) / wallS),
            echoWorkers: round((100 * cpu.pods) / wallS),
            total: round((100 * totalCpu) / wallS),
          },
          cpuMsPerJob: {
            daemons: round((1000 * cpu.daemons.reduce((a, b) => a + b, 0)) / JOBS, 2),
            temporal: round((1000 * cpu.temporal) / JOBS, 2),
            platformAndClient: round((1000 * cpu.bench) / JOBS, 2),
            echoWorkers: round((1000 * cpu.pods) / JOBS, 2),
          },
          store: {
            kind: STORE,
            // From the daemons' /metrics once they expose the store's counters (empty before).
            requestsPerJob: Object.fromEntries(
              Object.entries(ops).map(([l, v]) => [l.replace(/^op="(.*)"$/, '$1'), round(v / JOBS, 3)]),
            ),
            bytesPerJob: Object.fromEntries(
              Object.entries(bytes).map(([l, v]) => [l.replace(/^dir="(.*)"$/, '$1'), round(v / JOBS, 1)]),
            ),
            // The daemons' writes to storage (the store's files, fsync'd; the store is their only disk writer).
            diskWriteBytesPerJob: round(diskWritten / JOBS, 1),
            ...(storeBefore && storeAfter
              ? {
                  filesPerJob: round((storeAfter.files - storeBefore.files) / JOBS, 4),
                  bytesStoredPerJob: round((storeAfter.bytes - storeBefore.bytes) / JOBS, 1),
                }
              : {}),
            ...(out !== undefined ? { outcomeFilesBytesPerJob: round(out / JOBS, 1) } : {}),
          },
        });
        if (!values.json) console.error(JSON.stringify(rows.at(-1)));
      }
      await Promise.all(started.map((d) => d.stop()));
      daemons.length = 0;
    }
  } finally {
    // On every exit path: a daemon left running would poll its task queue forever.
    await Promise.all(daemons.map((d) => d.stop()));
    await platform.close();
    await env.teardown();
    await s3?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const jps = (r: Record<string, unknown>) => r.jobsPerSecond as number;
  const result = {
    config: {
      jobs: JOBS,
      batches: BATCHES,
      concurrencyPerBatch: CONCURRENCY,
      echoWorkers: WORKERS,
      store: STORE,
      cores: cpus().length,
      loadAtStart,
      temporalServerPids: temporalPids.length,
    },
    rows: rows.map((r) => ({
      ...r,
      factorVsFirst: round(jps(r) / jps(rows.find((x) => x.batches === r.batches)!), 2),
    })),
    // Per batch count: jobs/s with each added daemon over jobs/s without it.
    factorPerAddedDaemon: Object.fromEntries(
      BATCHES.map((b) => {
        const same = rows.filter((r) => r.batches === b);
        return [`${b} batches`, same.slice(1).map((r, k) => round(jps(r) / jps(same[k]!), 2))];
      }),
    ),
  };
  console.log(JSON.stringify(result, null, values.json ? 2 : 1));
}

runBench(main);
