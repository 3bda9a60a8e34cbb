/**
 * Platform benchmark: job lifecycles per second (run + take + done + status) with a no-op worker,
 * and the latency /runsync adds over a bare HTTP round trip, beside a bare node:http baseline
 * measured in the same process and run. Baseline and platform phases alternate over `--rounds`
 * so that a change in machine load hits both. See bench/README.md ("Platform").
 *
 *   npx tsx bench/platform/lifecycle.ts [--jobs N] [--concurrency C] [--rounds K] [--runsync R]
 *                                       [--warmup W] [--workers inproc|process] [--pods P] [--json] [--check]
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startBaseline } from './baseline';
import { median, runConcurrently, summarize, type Phase, type Summary } from './stats';
import { startTarget } from './target';
import { type WorkerMode } from './workers';

interface Args {
  jobs: number;
  concurrency: number;
  rounds: number;
  runsync: number;
  warmup: number;
  workers: WorkerMode;
  pods: number;
  json: boolean;
  check: boolean;
}

const USAGE = `usage: npx tsx bench/platform/lifecycle.ts [options]
  --jobs N           timed lifecycles (and baseline rounds of 4 requests) per round; default 2000
  --concurrency C    concurrent client loops (and in-process worker loops); default 16
  --rounds K         alternating baseline/platform rounds; figures are medians; default 5
  --runsync R        sequential /runsync calls (and bare round trips), over all rounds; default 300
  --warmup W         untimed lifecycles and baseline rounds first; default jobs / 4
  --workers MODE     inproc: worker loops in this process over HTTP (default);
                     process: pods spawned by the platform running worker-sdk (bench/platform/noop-worker.ts)
  --pods P           worker processes in process mode; default 1
  --json             print one JSON object instead of the table
  --check            exit 2 when the goal (lifecycles/s >= bound / 2) is not met`;

function parseCli(): Args {
  const { values } = parseArgs({
    options: {
      jobs: { type: 'string', default: '2000' },
      concurrency: { type: 'string', default: '16' },
      rounds: { type: 'string', default: '5' },
      runsync: { type: 'string', default: '300' },
      warmup: { type: 'string' },
      workers: { type: 'string', default: 'inproc' },
      pods: { type: 'string', default: '1' },
      json: { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const int = (name: string, raw: string | undefined, min: number): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}, got ${raw}`);
    return n;
  };
  const jobs = int('jobs', values.jobs, 1);
  if (values.workers !== 'inproc' && values.workers !== 'process')
    throw new Error(`--workers must be inproc or process, got ${values.workers}`);
  return {
    jobs,
    concurrency: int('concurrency', values.concurrency, 1),
    rounds: int('rounds', values.rounds, 1),
    runsync: int('runsync', values.runsync, 1),
    warmup: int('warmup', values.warmup ?? String(Math.max(100, Math.round(jobs / 4))), 0),
    workers: values.workers,
    pods: int('pods', values.pods, 1),
    json: values.json,
    check: values.check,
  };
}

interface Round {
  baselineRps: number;
  boundPerSec: number;
  lifecyclesPerSec: number;
  ratio: number;
  /** CPU µs of this process per four baseline requests / per lifecycle. */
  baselineCpuUs: number;
  platformCpuUs: number;
  /** CPU µs of the worker processes per lifecycle (process mode). */
  workerCpuUs?: number;
}

interface Result {
  rounds: Round[];
  roundTrip: Summary;
  runsync: Summary;
  /** 1-minute load average before and after: other work on the machine skews the figures. */
  load: [number, number];
}

async function measure(args: Args): Promise<Result> {
  const load0 = loadavg()[0]!;
  const baseline = await startBaseline(args.concurrency);
  const target = await startTarget({ workers: args.workers, concurrency: args.concurrency, pods: args.pods });
  try {
    await runConcurrently(args.warmup, args.concurrency, baseline.round);
    await runConcurrently(args.warmup, args.concurrency, target.lifecycle);
    for (let i = 0; i < 50; i++) {
      await baseline.roundTrip();
      await target.runsync();
    }
    const rounds: Round[] = [];
    const roundTrips: number[] = [];
    const runsyncs: number[] = [];
    const perRound = Math.ceil(args.runsync / args.rounds);
    for (let r = 0; r < args.rounds; r++) {
      const base: Phase = await runConcurrently(args.jobs, args.concurrency, baseline.round);
      const w0 = target.workerCpuUs();
      const plat: Phase = await runConcurrently(args.jobs, args.concurrency, target.lifecycle);
      const w1 = target.workerCpuUs();
      const baselineRps = (4 * args.jobs) / base.seconds;
      const lifecyclesPerSec = args.jobs / plat.seconds;
      rounds.push({
        baselineRps,
        boundPerSec: baselineRps / 4,
        lifecyclesPerSec,
        ratio: lifecyclesPerSec / (baselineRps / 4),
        baselineCpuUs: base.cpuUs / args.jobs,
        platformCpuUs: plat.cpuUs / args.jobs,
        ...(w0 !== undefined && w1 !== undefined ? { workerCpuUs: (w1 - w0) / args.jobs } : {}),
      });
      // Latency: one call at a time, bare round trips and /runsync interleaved.
      for (let i = 0; i < perRound && runsyncs.length < args.runsync; i++) {
        roundTrips.push(await baseline.roundTrip());
        runsyncs.push(await target.runsync());
      }
    }
    return { rounds, roundTrip: summarize(roundTrips), runsync: summarize(runsyncs), load: [load0, loadavg()[0]!] };
  } finally {
    await baseline.close();
    await target.close();
  }
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/** What the bench prints (`--json`) and the README quotes. Throughputs are medians over rounds. */
interface Report {
  date: string;
  machine: {
    cpus: number;
    cpuModel: string;
    node: string;
    os: string;
    loadAverage1m: { before: number; after: number };
  };
  config: {
    jobs: number;
    warmup: number;
    rounds: number;
    concurrency: number;
    runsync: number;
    workers: WorkerMode;
    pods?: number;
  };
  baseline: {
    requestsPerSec: number;
    boundLifecyclesPerSec: number;
    cpuUsPerFourRequests: number;
    roundTripMs: { p50: number; p99: number };
  };
  lifecycle: {
    perSec: number;
    ratioToBound: number;
    /** Noise-robust cross-check: CPU of 4 bare requests / CPU of one lifecycle (both in this process). */
    cpuRatioToBound: number;
    cpuUsPerLifecycle: number;
    workerCpuUsPerLifecycle?: number;
  };
  runsync: { calls: number; latencyMs: { p50: number; p99: number }; addedMs: { p50: number; p99: number } };
  rounds: { baselineRps: number; lifecyclesPerSec: number; ratio: number }[];
  goal: { target: string; met: boolean };
}

function toReport(args: Args, res: Result): Report {
  const m = (k: keyof Round): number => median(res.rounds.map((r) => r[k]).filter((x): x is number => x !== undefined));
  const ratio = m('lifecyclesPerSec') / m('boundPerSec');
  const workerCpu = m('workerCpuUs');
  return {
    date: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      node: process.version,
      os: process.platform,
      loadAverage1m: { before: round3(res.load[0]), after: round3(res.load[1]) },
    },
    config: {
      jobs: args.jobs,
      warmup: args.warmup,
      rounds: args.rounds,
      concurrency: args.concurrency,
      runsync: args.runsync,
      workers: args.workers,
      ...(args.workers === 'process' ? { pods: args.pods } : {}),
    },
    baseline: {
      requestsPerSec: Math.round(m('baselineRps')),
      boundLifecyclesPerSec: Math.round(m('boundPerSec')),
      cpuUsPerFourRequests: Math.round(m('baselineCpuUs')),
      roundTripMs: { p50: round3(res.roundTrip.p50), p99: round3(res.roundTrip.p99) },
    },
    lifecycle: {
      perSec: Math.round(m('lifecyclesPerSec')),
      ratioToBound: round3(ratio),
      cpuRatioToBound: round3(m('baselineCpuUs') / m('platformCpuUs')),
      cpuUsPerLifecycle: Math.round(m('platformCpuUs')),
      ...(Number.isNaN(workerCpu) ? {} : { workerCpuUsPerLifecycle: Math.round(workerCpu) }),
    },
    runsync: {
      calls: res.runsync.n,
      latencyMs: { p50: round3(res.runsync.p50), p99: round3(res.runsync.p99) },
      addedMs: { p50: round3(res.runsync.p50 - res.roundTrip.p50), p99: round3(res.runsync.p99 - res.roundTrip.p50) },
    },
    rounds: res.rounds.map((r) => ({
      baselineRps: Math.round(r.baselineRps),
      lifecyclesPerSec: Math.round(r.lifecyclesPerSec),
      ratio: round3(r.ratio),
    })),
    goal: { target: 'lifecycles/s >= bound / 2 (medians over rounds)', met: ratio >= 0.5 },
  };
}

const f = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const pct = (ratio: number): string => `${f(ratio * 100, 1)} %`;

function printTable(r: Report): void {
  const { machine: mc, config: c, baseline: b, lifecycle: l, runsync: s } = r;
  const rows: [string, string][] = [
    [
      'machine',
      `${mc.cpus} CPUs (${mc.cpuModel}), node ${mc.node}, load average ${f(mc.loadAverage1m.before, 2)} -> ${f(mc.loadAverage1m.after, 2)}`,
    ],
    [
      'config',
      `${c.rounds} rounds x ${c.jobs} jobs (+${c.warmup} warmup), concurrency ${c.concurrency}, workers ${c.workers}${c.pods !== undefined ? ` x${c.pods} pod(s)` : ''}`,
    ],
    ...r.rounds.map((x, i): [string, string] => [
      `round ${i + 1}`,
      `baseline ${f(x.baselineRps)} req/s -> bound ${f(x.baselineRps / 4)}/s; platform ${f(x.lifecyclesPerSec)} lifecycles/s (${pct(x.ratio)})`,
    ]),
    ['baseline (bare node:http)', `${f(b.requestsPerSec)} req/s`],
    ['bound (baseline / 4)', `${f(b.boundLifecyclesPerSec)} lifecycles/s`],
    [
      'platform lifecycles',
      `${f(l.perSec)} /s = ${pct(l.ratioToBound)} of bound -> goal >= 50 %: ${r.goal.met ? 'MET' : 'NOT MET'}`,
    ],
    [
      'CPU, this process',
      `${f(b.cpuUsPerFourRequests)} µs per 4 bare requests, ${f(l.cpuUsPerLifecycle)} µs per lifecycle` +
        (l.workerCpuUsPerLifecycle !== undefined
          ? ` (+ ${f(l.workerCpuUsPerLifecycle)} µs in the worker process)`
          : '') +
        ` -> CPU ratio ${pct(l.cpuRatioToBound)}`,
    ],
    ['bare round trip', `p50 ${f(b.roundTripMs.p50, 3)} ms, p99 ${f(b.roundTripMs.p99, 3)} ms (${s.calls} sequential)`],
    ['/runsync latency', `p50 ${f(s.latencyMs.p50, 3)} ms, p99 ${f(s.latencyMs.p99, 3)} ms (${s.calls} sequential)`],
    [
      '/runsync added latency',
      `p50 +${f(s.addedMs.p50, 3)} ms, p99 +${f(s.addedMs.p99, 3)} ms (over the bare round trip p50)`,
    ],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) console.log(`${k.padEnd(w)}  ${v}`);
  console.log('(throughputs are medians over the rounds)');
}

async function main(): Promise<void> {
  const args = parseCli();
  const report = toReport(args, await measure(args));
  if (args.json) console.log(JSON.stringify(report, null, 2));
  else printTable(report);
  if (args.check && !report.goal.met) process.exitCode = 2;
}

// Exits explicitly: the platform's abandoned job-take long-polls keep a timer for takeWaitMs (20 s).
main()
  .then(() => process.exit(process.exitCode ?? 0))
  .catch((err: unknown) => {
    console.error('bench failed:', err);
    process.exit(1);
  });
