/**
 * bench/batch: the batch workflow against a plain non-durable loop of the npm `runpod-sdk` client
 * at the same concurrency on the same platform: jobs/s, history events per job, HTTP calls per job,
 * the daemon's peak RSS; optionally a large run (RSS flat) and runs under the spec's rate limits:
 * one batch, two batches at once on one daemon, and two batches on two daemons of one task queue
 * (`--two`), each measured on the platform's side (jobs admitted per full 10 s window, 429s).
 *
 * The `--per-job-workflows` mode runs `--per-job` jobs (a child job workflow each; 0 skips it).
 *
 *   npx tsx bench/batch/index.ts [--jobs 10000] [--per-job 1000] [--concurrency 64] [--workers 8] [--large 100000] [--limited 3000] [--two] [--json]
 *   --curve: the large run's memory curve (RSS, heap, external at 10k, 50k, 100k, ... inputs; every 5 s to stderr)
 *   --heap-snapshots: the daemon writes a heap snapshot on SIGUSR2
 *   --daemon-node-args "...": node flags for the daemon (e.g. V8 heap flags, to compare memory curves)
 *   (--jobs 0 skips the unlimited runs)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import runpodSdk from 'runpod-sdk';
import { BatchClient } from '../../client/batch';
import { batchChildId } from '../../contracts/names';
import { RATE_LIMITS, RATE_WINDOW_MS } from '../../contracts';
import { type Platform } from '../../platform';
import {
  benchPlatform,
  callsBetween,
  daemonEnv as stackDaemonEnv,
  daemonProcess,
  historyEvents,
  httpCalls,
  memoryCurve,
  rssOf,
  rssSampler,
  temporalEnv,
  warmEndpoint,
} from './stack';
import { benchArgs, runBench } from '../main';

const USAGE = `
usage: npx tsx bench/batch/index.ts [options]
  --jobs N            jobs of the unlimited runs (10000; 0 skips them)
  --per-job N         jobs of the per-job-workflows run (1000; 0 skips it)
  --concurrency C     per batch (64)
  --workers W         echo workers (8)
  --large N           adds a bulk run of N inputs (time, RSS)
  --limited N         adds runs of N jobs under the spec's rate limits
  --two               adds the two-batch and two-daemon limited runs
  --curve             the large run's memory curve, to stderr
  --heap-snapshots    the daemon writes a heap snapshot on SIGUSR2
  --daemon-node-args A  node flags for the daemon, space-separated (e.g. "--max-semi-space-size=32")
  --json              one JSON document on stdout
  --help              this text`;

const values = benchArgs(USAGE, {
  jobs: { type: 'string' },
  'per-job': { type: 'string' },
  concurrency: { type: 'string' },
  workers: { type: 'string' },
  large: { type: 'string' },
  limited: { type: 'string' },
  two: { type: 'boolean' },
  curve: { type: 'boolean' },
  'heap-snapshots': { type: 'boolean' },
  'daemon-node-args': { type: 'string' },
  json: { type: 'boolean' },
});
const JOBS = Number(values.jobs ?? 10_000);
const PER_JOB = Number(values['per-job'] ?? 1000);
const CONCURRENCY = Number(values.concurrency ?? 64);
const WORKERS = Number(values.workers ?? 8);
const LARGE = Number(values.large ?? 0);
const LIMITED = Number(values.limited ?? 0);
const TWO = values.two === true;
const CURVE = values.curve === true;
// The daemon writes a heap snapshot to the current folder on SIGUSR2 (`kill -USR2 <pid>`).
const DAEMON_NODE_ARGS = [
  ...(values['heap-snapshots'] === true ? ['--heapsnapshot-signal=SIGUSR2'] : []),
  ...(values['daemon-node-args'] ?? '').split(' ').filter((a) => a !== ''),
];
async function plainLoop(platform: Platform, endpointId: string, jobs: number): Promise<{ jobsPerSecond: number }> {
  const ep = runpodSdk(platform.apiKey, { baseUrl: `${platform.url}/v2` }).endpoint(endpointId)!;
  let next = 0;
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < jobs) {
        const i = next++;
        const r = await ep.runSync({ input: { i } }, 60_000);
        if (r.status !== 'COMPLETED') throw new Error(`plain loop: job ${i} ended ${r.status}`);
      }
    }),
  );
  return { jobsPerSecond: +(jobs / ((Date.now() - t0) / 1000)).toFixed(1) };
}

/**
 * Submissions as the platform saw them: the share of the `/run` limit used over the run's full
 * windows (jobs admitted in [first, first + k windows) against k x the limit; the last, partial
 * window is left out), and the platform's 429s as a share of submissions.
 */
function limitUse(
  platform: Platform,
  endpointId: string,
  since: number,
  perWindow: number,
  before: { admitted: number; limited: number },
) {
  const at = platform.engine.jobs
    .ofEndpoint(endpointId)
    .map((j) => j.submittedAt)
    .filter((t) => t >= since)
    .sort((a, b) => a - b);
  const counts = platform.limiter.counts(platform.user.id, endpointId, 'run');
  const admitted = counts.admitted - before.admitted;
  const limited = counts.limited - before.limited;
  const windows = Math.floor((at.at(-1)! - at[0]!) / RATE_WINDOW_MS);
  const inFull = at.filter((t) => t < at[0]! + windows * RATE_WINDOW_MS).length;
  return {
    submitted: at.length,
    spanMs: at.at(-1)! - at[0]!,
    fullWindows: windows,
    shareOfLimit: windows > 0 ? +(inFull / (windows * perWindow)).toFixed(3) : null,
    platform429s: limited,
    rateLimitedShare: +(limited / Math.max(1, admitted + limited)).toFixed(4),
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-batch-'));
  const env = await temporalEnv(dir);
  const results: Record<string, unknown> = { jobs: JOBS, concurrency: CONCURRENCY, workers: WORKERS };
  try {
    for (const limited of [false, true]) {
      if (limited && LIMITED === 0) continue;
      if (!limited && JOBS === 0 && PER_JOB === 0 && LARGE === 0) continue;
      const platform = await benchPlatform(join(dir, limited ? 'platform-limited' : 'platform'), limited);
      try {
        const echo = { id: await warmEndpoint(platform, platform.examples.echo!, WORKERS) };
        const port = 20_000 + Math.floor(Math.random() * 20_000);
        // A task queue per phase: the stopped daemon of the first would count as a live poller for
        // a while (rate share) in the second.
        const taskQueue = limited ? 'bench-batch-limited' : 'bench-batch';
        const daemonEnv = (p: number) =>
          stackDaemonEnv({ temporal: env.address, platform, dir, port: p, taskQueue, limited });
        const daemon = await daemonProcess(daemonEnv(port), DAEMON_NODE_ARGS);
        const batch = new BatchClient({ client: env.client, taskQueue, resultsDir: join(dir, 'results') });
        const memoryCurveOf = (idOf: () => string, n: number) =>
          memoryCurve({
            pid: daemon.child.pid!,
            metricsUrl: daemon.metricsUrl,
            done: async () => (idOf() ? (await batch.state(idOf())).counts.done : 0),
            marks: [
              10_000, 50_000, 100_000, 200_000, 300_000, 400_000, 500_000, 600_000, 700_000, 800_000, 900_000,
            ].filter((m) => m < n),
          });
        const run = async (name: string, n: number, perJobWorkflows = false, withCurve = false) => {
          const file = join(dir, `${name}.jsonl`);
          writeFileSync(file, Array.from({ length: n }, (_, i) => `{"i":${i}}\n`).join(''));
          const before = await httpCalls(daemon.metricsUrl);
          let id = '';
          const sampler = rssSampler(daemon.child.pid!);
          const curve = withCurve ? memoryCurveOf(() => id, n) : undefined;
          const t0 = Date.now();
          id = await batch.start({
            id: `${name}-${Date.now()}`,
            endpointId: echo.id,
            source: file,
            outDir: join(dir, `${name}-out`),
            options: { concurrency: CONCURRENCY, ...(perJobWorkflows ? { perJobWorkflows } : {}) },
          });
          const summary = await batch.result(id);
          const wallMs = Date.now() - t0;
          sampler.stop();
          curve?.stop();
          const { calls, total } = callsBetween(before, await httpCalls(daemon.metricsUrl));
          let { events } = await historyEvents(env.client, id);
          const parentEvents = events;
          // Per-job workflows: each child's own history too (batch/<id>/<index>).
          if (perJobWorkflows) {
            for (let i = 0; i < n; i += 32) {
              const lens = await Promise.all(
                Array.from({ length: Math.min(32, n - i) }, (_, k) =>
                  env.client.workflow
                    .getHandle(batchChildId(id, i + k))
                    .fetchHistory()
                    .then((h) => h.events?.length ?? 0),
                ),
              );
              events += lens.reduce((a, b) => a + b, 0);
            }
          }
          const rate = n / (wallMs / 1000);
          return {
            n,
            wallMs,
            jobsPerSecond: +rate.toFixed(1),
            completed: summary.counts.byStatus.COMPLETED ?? 0,
            runs: summary.runs,
            eventsPerJob: +(events / n).toFixed(3),
            ...(perJobWorkflows ? { parentEventsPerJob: +(parentEvents / n).toFixed(3) } : {}),
            httpCallsPerJob: +(total / n).toFixed(3),
            calls,
            rateLimited: summary.counts.rateLimited,
            daemonRssMb: { peakSampled: sampler.max, peakProcess: rssOf(daemon.child.pid!).peak },
            ...(curve ? { memoryCurve: curve.curve() } : {}),
          };
        };
        try {
          if (!limited) {
            await run('warmup', 200);
            if (JOBS > 0) results.plain = await plainLoop(platform, echo.id, JOBS);
            if (JOBS > 0) results.bulk = await run('bulk', JOBS);
            if (PER_JOB > 0) results.perJobWorkflows = await run('perjob', PER_JOB, true);
            if (LARGE > 0) results.large = await run('large', LARGE, false, CURVE);
          } else {
            // The spec's /run limit: 1,000 per 10 s per endpoint, raised by the dynamic limit (100 per worker) with workers.
            const perWindow = Math.max(RATE_LIMITS.run.perWindow, WORKERS * 100);
            const measured = async <T>(go: () => Promise<T>) => {
              const since = Date.now();
              const before = platform.limiter.counts(platform.user.id, echo.id, 'run');
              const r = await go();
              return {
                ...r,
                effectiveRunLimitPer10s: perWindow,
                ...limitUse(platform, echo.id, since, perWindow, before),
              };
            };
            results.limited = await measured(() => run('limited', LIMITED));
            if (TWO) {
              const half = Math.floor(LIMITED / 2);
              const pair = async (tag: string) => {
                const [a, b] = await Promise.all([run(`${tag}-a`, half), run(`${tag}-b`, half)]);
                return {
                  n: a.n + b.n,
                  batches: [a, b].map((x) => ({
                    n: x.n,
                    wallMs: x.wallMs,
                    completed: x.completed,
                    rateLimitedSeenBySluice: x.rateLimited,
                  })),
                };
              };
              results.limitedTwoBatches = await measured(() => pair('two-batches'));
              const second = await daemonProcess(daemonEnv(port + 1));
              try {
                // Each daemon counts the task queue's live pollers every 15 s: let the first see the second.
                await new Promise((r) => setTimeout(r, 17_000));
                results.limitedTwoDaemons = await measured(() => pair('two-daemons'));
              } finally {
                await second.stop();
              }
            }
          }
        } finally {
          // On every exit path: a daemon left running would poll the bench's task queue forever.
          await daemon.stop();
        }
      } finally {
        await platform.close();
      }
    }
  } finally {
    await env.teardown();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(values.json ? JSON.stringify(results, null, 2) : results);
}

runBench(main);
