/**
 * bench/faults: the same batch of echo inputs fault-free, then under each row of issue 19's table
 * (the platform's seeded fault mode, a daemon whose public URL is unreachable, SIGKILLs), each on
 * the real stack (a `sluice platform --faults` process, the Temporal dev server on a SQLite file as
 * the embedded default runs it, a `sluice worker` process): time relative to fault-free in the same
 * run, beside its goal, and exactness (every input once with its own output, one remote job each as
 * the platform counts them). A row past `--timeout` is stopped and reported as "> N s".
 *
 *   npx tsx bench/faults/index.ts [--inputs 300] [--rows 429,delay,...] [--kills] [--workers 8] [--timeout 300] [--json] [--timeline] [--history]
 *   (--kills adds the row "all faults together" with the daemon and the platform SIGKILLed; --timeline
 *   prints each row's kills and its workflow's stalls to stderr, bench/faults/timeline.ts)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchClient } from '../../client/batch';
import { temporalEnv } from '../../test/helpers/orchestrator';
import { call, eventually } from '../../test/helpers/platform';
import { counters, load1 } from '../multi/procs';
import { exactness, type Exactness } from './exactness';
import { ROWS, specOf, type FaultRow } from './rows';
import { rowLine, within, type RowRun } from './report';
import { sendsOf, type Sends } from './sends';
import { Marks, timeline, type Mark } from './timeline';
import { daemonProcess, platformJobCounts, platformProcess, type DaemonHandle, type PlatformProcess } from './stack';
import { benchArgs, printRows, runBench } from '../main';

const USAGE = `
usage: npx tsx bench/faults/index.ts [options]
  --inputs N      echo inputs per batch (300)
  --rows A,B,...  rows to run after fault-free: ${ROWS.map((r) => r.key).join(',')}
                  (default: every row without kills)
  --kills         adds the rows with the daemon and the platform SIGKILLed (kills, all-kills)
  --workers W     echo workers kept up (8)
  --timeout S     per row, seconds (300): a row past it is stopped and shown as "> S s"
  --json          one JSON document on stdout (with each row's 429s and send timeline)
  --timeline      each row's kills, done counts, the platform's /health and the workflow's stalls, to stderr
  --history       with --timeline: every event of the workflow's history too, each with its time
  --help          this text`;

const values = benchArgs(USAGE, {
  inputs: { type: 'string' },
  rows: { type: 'string' },
  kills: { type: 'boolean' },
  workers: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  timeline: { type: 'boolean' },
  history: { type: 'boolean' },
});
const N = Number(values.inputs ?? 300);
const WORKERS = Number(values.workers ?? 8);
const TIMEOUT_MS = Number(values.timeout ?? 300) * 1000;
const wanted = values.rows?.split(',');
const unknownRows = wanted?.filter((k) => !ROWS.some((r) => r.key === k)) ?? [];
if (unknownRows.length > 0) {
  console.error(`unknown row(s): ${unknownRows.join(', ')}\n${USAGE}`);
  process.exit(2);
}
const rows = ROWS.filter((r) => (wanted ? wanted.includes(r.key) : !r.kills || values.kills === true));

type Env = Awaited<ReturnType<typeof temporalEnv>>;

/** One measured run: wall time (or the timeout it passed), the faults the platform applied, its exactness. */
interface Run {
  key: string;
  spec: string;
  wallMs: number;
  timedOut: boolean;
  applied: Record<string, number>;
  queueCalls: number;
  exact: Exactness;
  /** With --timeline: the kills and the workflow's stalls, in seconds from the start. */
  timeline?: Mark[];
  /** The 429s the daemon met, by operation (its counter: each attempt). */
  limited: Record<string, number>;
  /** When the inputs were sent, and the tail after the last (from the results). */
  sends?: Sends;
}

const runOf = (r: Run): RowRun => ({ ...r, problems: r.exact.problems });

/** Runs the batch once on a fresh platform (spec `spec`) and daemon; `row` says what else happens. */
async function runOnce(env: Env, dir: string, key: string, spec: string, row?: FaultRow): Promise<Run> {
  const here = join(dir, key);
  const resultsDir = join(here, 'results');
  const taskQueue = `bench-faults-${key}`;
  const platform = await platformProcess(join(here, 'data'), spec, WORKERS);
  try {
    const daemon = await daemonProcess(platform, env.address, resultsDir, taskQueue, row?.unreachable === true);
    try {
      return await measure(env, here, key, spec, platform, daemon, row);
    } finally {
      await daemon.stop();
    }
  } finally {
    await platform.stop();
  }
}

async function measure(
  env: Env,
  here: string,
  key: string,
  spec: string,
  platform: PlatformProcess,
  daemon: DaemonHandle,
  row?: FaultRow,
): Promise<Run> {
  const batch = new BatchClient({
    client: env.client,
    taskQueue: `bench-faults-${key}`,
    resultsDir: join(here, 'results'),
  });
  const source = join(here, 'in.jsonl');
  const outDir = join(here, 'out');
  writeFileSync(source, Array.from({ length: N }, (_, i) => `{"i":${i}}\n`).join(''));
  const t0 = Date.now();
  const id = await batch.start({ id: `faults-${key}-${t0}`, endpointId: platform.echoId, source, outDir });
  const over = { now: false };
  const marks = new Marks(t0);
  // Settled here, so a failed kill is reported after the batch, never as an unhandled rejection.
  const kills = (row?.kills ? killMidRun(batch, id, platform, daemon, over, marks) : Promise.resolve()).then(
    () => undefined,
    (err: unknown) => err,
  );
  const sampler = values.timeline ? sampleDone(batch, id, platform, marks) : undefined;
  const ended = await within(batch.result(id), TIMEOUT_MS);
  const wallMs = Date.now() - t0;
  marks.add('batch result');
  clearInterval(sampler);
  over.now = true;
  if (ended === 'timeout') {
    await env.client.workflow.getHandle(id).terminate('bench/faults: past --timeout');
    await kills;
    const exact = { exact: false, problems: ['stopped at the timeout'] };
    return { key, spec, wallMs, timedOut: true, applied: { ...platform.applied }, queueCalls: -1, limited: {}, exact };
  }
  const killError = await kills;
  if (killError) throw killError;
  const calls = await counters(daemon.metricsUrl(), 'sluice_http_calls_total').catch(() => ({}));
  const limited = await counters(daemon.metricsUrl(), 'sluice_http_rate_limited_total').catch(() => ({}));
  const sends = sendsOf(outDir, t0);
  return {
    ...(values.timeline
      ? { timeline: await timeline(env.client, id, t0, marks.list, 2, values.history === true) }
      : {}),
    key,
    spec,
    wallMs,
    timedOut: false,
    applied: { ...platform.applied },
    queueCalls: Object.values(calls).reduce((a, b) => a + b, 0),
    limited,
    ...(sends ? { sends } : {}),
    exact: exactness(outDir, N, await platformJobCounts(platform)),
  };
}

/** Marks the batch's done count and the platform's jobs and workers every 3 s (the query is unanswered while no daemon runs the batch). */
function sampleDone(batch: BatchClient, id: string, platform: PlatformProcess, marks: Marks): NodeJS.Timeout {
  return setInterval(() => {
    const health = call(platform.url, 'GET', `/v2/${platform.echoId}/health`, { key: platform.apiKey }).then(
      (r) => JSON.stringify(r.body),
      (err: unknown) => String(err),
    );
    void Promise.all([
      batch.state(id).then(
        (s) => `done ${s.counts.done}, in flight ${s.counts.inFlight}`,
        () => 'no answer',
      ),
      health,
    ]).then(([state, h]) => marks.add(`${state}; platform ${h}`));
  }, 3000);
}

/**
 * The daemon SIGKILLed once a quarter of the inputs are done, the platform once half are; each
 * restarted. Nothing more once the run is `over` (ended or stopped at the timeout).
 */
async function killMidRun(
  batch: BatchClient,
  id: string,
  platform: PlatformProcess,
  daemon: DaemonHandle,
  over: { now: boolean },
  marks: Marks,
): Promise<void> {
  const doneAtLeast = (k: number) =>
    eventually(async () => over.now || (await batch.state(id)).counts.done >= k, TIMEOUT_MS, 200);
  await doneAtLeast(Math.floor(N / 4));
  if (over.now) return;
  marks.add(`daemon SIGKILL (done >= ${Math.floor(N / 4)})`);
  await daemon.killAndRestart(() => marks.add('daemon gone'));
  marks.add('daemon restarted (running)');
  await doneAtLeast(Math.floor(N / 2));
  if (over.now) return;
  marks.add(`platform SIGKILL (done >= ${Math.floor(N / 2)})`);
  await platform.killAndRestart(() => marks.add('platform gone'));
  marks.add('platform restarted (its banner)');
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-faults-'));
  const env = await temporalEnv(join(dir, 'temporal.sqlite'));
  const out: Record<string, unknown>[] = [];
  const load = [load1()];
  try {
    const free = await runOnce(env, dir, 'fault-free', '');
    out.push(rowLine(runOf(free), runOf(free), TIMEOUT_MS));
    for (const row of rows) {
      const r = await runOnce(env, dir, row.key, specOf(row, free.queueCalls), row);
      out.push({
        ...rowLine(runOf(r), runOf(free), TIMEOUT_MS, row),
        spec: r.spec || (row.unreachable ? 'SLUICE_PUBLIC_URL=closed port' : ''),
        // Where the time went (JSON only): 429s the daemon met, when the inputs were sent, the tail.
        ...(values.json ? { daemon429s: r.limited, sends: r.sends } : {}),
      });
      if (!values.json) console.error(out.at(-1));
      for (const m of r.timeline ?? []) console.error(`  ${row.key} +${m.atS.toFixed(1)} s  ${m.what}`);
      load.push(load1());
    }
    const meta = { inputs: N, workers: WORKERS, faultFreeQueueCalls: free.queueCalls, load1: load };
    printRows(meta, out, values.json);
  } finally {
    await env.teardown();
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
