/**
 * bench/batch/small.ts: a small batch as a user runs it, `sluice batch start FILE --endpoint E
 * --concurrency C` (the compiled CLI, a process) until it exits with the result, against a plain
 * non-durable loop of the npm `runpod-sdk` client (`endpoint.runSync`) at the same concurrency, on
 * the same platform (its default rate limits, as `sluice dev` runs it) with `--workers` warm echo
 * workers, Temporal on a SQLite file and the daemon a `sluice worker` process with its defaults.
 * Where the time goes, from the platform's job records: before the first submission (process
 * start, connecting, starting the workflow, opening the batch), the span from the first submission
 * to the last completion, and after the last completion (writing the outcome files, noticing the
 * end, the process exit). The loop runs twice a round: in this process (no process start) and as a
 * user's `node loop.mjs` (small-loop.mjs: its own process, Node's start and runpod-sdk's loading
 * included, as the batch's command pays its own). Goal (issue 23): the batch at most the loop's time,
 * judged against the loop as a process (the like-for-like row). Each batch starts once the previous
 * one's submissions have left the service's /run rate window, as a user's one batch does.
 *
 *   npx tsx bench/batch/small.ts [--inputs 900] [--concurrency 32] [--workers 3] [--rounds 3] [--json]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import runpodSdk from 'runpod-sdk';
import { startPlatform, type Platform } from '../../platform';
import { temporalEnv } from '../../test/helpers/orchestrator';
import { RATE_WINDOW_MS } from '../../contracts/limits';
import { benchArgs, runBench } from '../main';

const USAGE = `
usage: npx tsx bench/batch/small.ts [options]
  --inputs N        inputs per batch (900)
  --concurrency C   of the batch and the loop (32)
  --workers W       warm echo workers (3)
  --rounds K        batches and loops, alternating (3)
  --json            one JSON document on stdout
  --detail          each round's marks and workflow events, to stderr
  --help            this text`;

const values = benchArgs(USAGE, {
  inputs: { type: 'string', default: '900' },
  concurrency: { type: 'string', default: '32' },
  workers: { type: 'string', default: '3' },
  rounds: { type: 'string', default: '3' },
  json: { type: 'boolean' },
  detail: { type: 'boolean' },
});
const INPUTS = Number(values.inputs);
const CONCURRENCY = Number(values.concurrency);
const WORKERS = Number(values.workers);
const ROUNDS = Number(values.rounds);
const bin = join(__dirname, '..', '..', 'bin', 'sluice.cjs');

/** One run's wall time and its phases (ms), from the platform's records of the jobs it created. */
interface Phases {
  wallMs: number;
  beforeFirstSubmitMs: number;
  submitToLastDoneMs: number;
  afterLastDoneMs: number;
  /** The batch only: from the command's start to the workflow's start, and from its close to the command's exit. */
  workflowStartedMs?: number;
  afterWorkflowClosedMs?: number;
  /** The batch only: the daemon's CPU time (user + system) during the run. */
  daemonCpuMs?: number;
}

/** A process's CPU time so far (user + system, ms), from /proc (Linux); 0 elsewhere. */
function cpuMsOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [utime, stime] = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .slice(11, 13)
      .map(Number);
    return ((utime! + stime!) * 1000) / 100; // clock ticks: USER_HZ is 100 on Linux
  } catch {
    return 0;
  }
}

function phases(platform: Platform, endpointId: string, t0: number, t1: number): Phases {
  const jobs = platform.engine.jobs.ofEndpoint(endpointId).filter((j) => j.submittedAt >= t0);
  if (jobs.length !== INPUTS) throw new Error(`${jobs.length} jobs for ${INPUTS} inputs`);
  const first = Math.min(...jobs.map((j) => j.submittedAt));
  const last = Math.max(...jobs.map((j) => j.completedAt ?? Infinity));
  return {
    wallMs: t1 - t0,
    beforeFirstSubmitMs: first - t0,
    submitToLastDoneMs: last - first,
    afterLastDoneMs: t1 - last,
  };
}

async function plainLoop(platform: Platform, endpointId: string): Promise<Phases> {
  const t0 = Date.now();
  const ep = runpodSdk(platform.apiKey, { baseUrl: `${platform.url}/v2` }).endpoint(endpointId)!;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < INPUTS) {
        const i = next++;
        const r = await ep.runSync({ input: { i } }, 60_000);
        if (r.status !== 'COMPLETED') throw new Error(`plain loop: job ${i} ended ${r.status}`);
      }
    }),
  );
  return phases(platform, endpointId, t0, Date.now());
}

/** The same loop as its own process (small-loop.mjs), to its exit. */
async function processLoop(platform: Platform, endpointId: string): Promise<Phases> {
  const t0 = Date.now();
  const args = [`${platform.url}/v2`, platform.apiKey, endpointId, String(INPUTS), String(CONCURRENCY)];
  const r = await run(process.execPath, [join(__dirname, 'small-loop.mjs'), ...args], process.env);
  if (r.code !== 0) throw new Error(`node small-loop.mjs exited ${r.code}:\n${r.out}`);
  return phases(platform, endpointId, t0, Date.now());
}

/** A scheduled activity's type, and what a step was asked to do (its non-empty orders, its collect). */
function activityOf(e: { activityTaskScheduledEventAttributes?: unknown }): string {
  const a = e.activityTaskScheduledEventAttributes as
    { activityType?: { name?: string }; input?: { payloads?: { data?: Uint8Array }[] } } | null | undefined;
  if (!a) return '';
  const data = a.input?.payloads?.[0]?.data;
  const req = data ? (JSON.parse(Buffer.from(data).toString()) as Record<string, unknown>) : {};
  const orders = ['write', 'submit', 'retry', 'cancel', 'poll', 'sg']
    .filter((k) => Array.isArray(req[k]) && (req[k] as unknown[]).length > 0)
    .map((k) => `${k} ${(req[k] as unknown[]).length}`);
  if (req.read) orders.push('read');
  const collect = req.collect ? ` collect ${JSON.stringify(req.collect)}` : '';
  return ` ${a.activityType?.name ?? ''} ${orders.join(', ')}${collect}`;
}

/** Runs a process to its exit; resolves with its exit code and output. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, out }));
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const medians = (runs: Phases[]): Phases => ({
  wallMs: median(runs.map((r) => r.wallMs)),
  beforeFirstSubmitMs: median(runs.map((r) => r.beforeFirstSubmitMs)),
  submitToLastDoneMs: median(runs.map((r) => r.submitToLastDoneMs)),
  afterLastDoneMs: median(runs.map((r) => r.afterLastDoneMs)),
  ...(runs[0]?.workflowStartedMs !== undefined
    ? {
        workflowStartedMs: median(runs.map((r) => r.workflowStartedMs!)),
        afterWorkflowClosedMs: median(runs.map((r) => r.afterWorkflowClosedMs!)),
        daemonCpuMs: median(runs.map((r) => r.daemonCpuMs!)),
      }
    : {}),
});

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-small-'));
  const env = await temporalEnv(join(dir, 'temporal.sqlite'));
  const platform = await startPlatform({
    port: 0,
    dataDir: join(dir, 'platform'),
    apiKey: 'bench',
    logger: pino({ level: 'silent' }),
    pods: { coldStartMs: 0, flashBootColdStartMs: 0 },
  });
  const stackEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SLUICE|TEMPORAL)_/.test(k))),
    TEMPORAL_ADDRESS: env.address,
    SLUICE_QUEUE_URL: `${platform.url}/v2`,
    SLUICE_GRAPHQL_URL: `${platform.url}/graphql`,
    SLUICE_API_KEY: platform.apiKey,
    SLUICE_RESULTS_DIR: join(dir, 'results'),
    SLUICE_BATCH_ROOTS: dir,
    SLUICE_LOG_LEVEL: 'warn',
    SLUICE_LOG_PRETTY: '0',
    // A code cache of the bench's own (warm after the warm-up round): the user's may be full of other
    // builds' modules, and a build that finds it full runs without (bench/README.md, branch small3).
    SLUICE_CACHE_DIR: join(dir, 'cache'),
  };
  const daemon = spawn(process.execPath, [bin, 'worker'], {
    env: { ...stackEnv, SLUICE_DAEMON_PORT: '0', SLUICE_TEMPORAL_METRICS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    daemon.stdout.on('data', (d: Buffer) => (out += d.toString()));
    daemon.stderr.on('data', (d: Buffer) => (out += d.toString()));
    for (let i = 0; !out.includes('sluice worker running'); i++) {
      if (i > 600 || daemon.exitCode !== null) throw new Error(`daemon did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const echo = platform.registry.saveEndpoint({
      ...platform.examples.echo!,
      workersMin: WORKERS,
      workersMax: WORKERS,
    });
    while (platform.pool.workerCounts(echo.id).idle < WORKERS) await new Promise((r) => setTimeout(r, 100));
    const file = join(dir, 'in.jsonl');
    writeFileSync(file, Array.from({ length: INPUTS }, (_, i) => `{"i":${i}}\n`).join(''));
    let lastBatchEnd = 0;
    const batchRun = async (round: number): Promise<Phases> => {
      // A user's one batch finds the endpoint's /run window (1000 per 10 s) empty; here the previous
      // round's 900 submissions would still fill it, and the daemon's rate budget would pace this
      // batch to their age (the loop's /runsync has a window of its own).
      const clear = lastBatchEnd + RATE_WINDOW_MS + 500 - Date.now();
      if (clear > 0) await new Promise((r) => setTimeout(r, clear));
      const cpu0 = cpuMsOf(daemon.pid);
      const t0 = Date.now();
      const args = ['batch', 'start', file, '--endpoint', echo.id, '--concurrency', String(CONCURRENCY)];
      const r = await run(
        process.execPath,
        [bin, ...args, '--id', `small-${round}-${t0}`, '--out', join(dir, `out-${round}`)],
        stackEnv,
      );
      const t1 = (lastBatchEnd = Date.now());
      const daemonCpuMs = cpuMsOf(daemon.pid) - cpu0;
      if (r.code !== 0) throw new Error(`sluice batch start exited ${r.code}:\n${r.out}`);
      const p = phases(platform, echo.id, t0, t1);
      // The workflow's own marks: when it started and when it closed (its history's first and last events).
      const events = (await env.client.workflow.getHandle(`batch/small-${round}-${t0}`).fetchHistory()).events ?? [];
      const at = (e: (typeof events)[number] | undefined) =>
        Number(e?.eventTime?.seconds ?? 0) * 1000 + Math.round((e?.eventTime?.nanos ?? 0) / 1e6);
      if (values.detail)
        console.error(
          `${p.beforeFirstSubmitMs} first submission (the command started at ${t0}, epoch ms)\n${p.wallMs - p.afterLastDoneMs} last completion\n` +
            events
              .map(
                (e) =>
                  `${at(e) - t0} ${Object.keys(e).find((k) => k.endsWith('Attributes')) ?? e.eventType}${activityOf(e)}`,
              )
              .join('\n'),
        );
      return {
        ...p,
        workflowStartedMs: at(events[0]) - t0,
        afterWorkflowClosedMs: t1 - at(events.at(-1)),
        daemonCpuMs,
      };
    };
    // The two loops share the endpoint's /runsync window (1000 per 10 s): the second starts once the
    // first's 900 calls have left it (a quick first loop made the second's runSync fail with a 429).
    let lastLoopEnd = 0;
    const windowClear = async (): Promise<void> => {
      const clear = lastLoopEnd + RATE_WINDOW_MS + 500 - Date.now();
      if (clear > 0) await new Promise((r) => setTimeout(r, clear));
    };
    const loops = async (): Promise<[Phases, Phases]> => {
      await windowClear();
      const inProcess = await plainLoop(platform, echo.id);
      lastLoopEnd = Date.now();
      await windowClear();
      const asProcess = await processLoop(platform, echo.id);
      lastLoopEnd = Date.now();
      return [inProcess, asProcess];
    };
    // Warm-up: the daemon's workflow bundle, the workers, Temporal's caches.
    await loops();
    await batchRun(0);
    const plain: Phases[] = [];
    const loopProcess: Phases[] = [];
    const batch: Phases[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const [inProcess, asProcess] = await loops();
      plain.push(inProcess);
      loopProcess.push(asProcess);
      batch.push(await batchRun(round));
    }
    const result = {
      inputs: INPUTS,
      concurrency: CONCURRENCY,
      workers: WORKERS,
      rounds: ROUNDS,
      plain: medians(plain),
      loopProcess: medians(loopProcess),
      batch: medians(batch),
      runs: { plain, loopProcess, batch },
    };
    if (values.json) console.log(JSON.stringify(result, null, 2));
    else {
      console.log(
        `${INPUTS} echo inputs, concurrency ${CONCURRENCY}, ${WORKERS} warm workers; medians of ${ROUNDS} rounds (ms)`,
      );
      console.log('run                       wall  before 1st submit  1st submit->last done  after last done');
      for (const [name, p] of [
        ['loop, in this process', result.plain],
        ['node loop.mjs', result.loopProcess],
        ['sluice batch start', result.batch],
      ] as const)
        console.log(
          `${name.padEnd(24)} ${String(p.wallMs).padStart(6)} ${String(p.beforeFirstSubmitMs).padStart(18)} ${String(p.submitToLastDoneMs).padStart(22)} ${String(p.afterLastDoneMs).padStart(16)}`,
        );
      const b = result.batch;
      console.log(
        `sluice batch start: workflow started ${b.workflowStartedMs} ms after the command, the command exited ${b.afterWorkflowClosedMs} ms after the workflow closed; the daemon's CPU ${b.daemonCpuMs} ms`,
      );
      const ratio = (p: Phases) => (result.batch.wallMs / p.wallMs).toFixed(2);
      console.log(
        `batch / node loop.mjs wall time: ${ratio(result.loopProcess)}x (goal <= 1); batch / in-process loop: ${ratio(result.plain)}x`,
      );
    }
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((r) => (daemon.exitCode !== null ? r(undefined) : daemon.once('exit', r)));
    await platform.close();
    await env.teardown();
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
