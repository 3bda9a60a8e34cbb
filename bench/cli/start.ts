/**
 * `npm run bench:cli`: how long the compiled `sluice` takes to answer, as a user runs it. Medians of
 * `--runs` (10) runs of `node bin/sluice.cjs ...` (dist/ must be built: `npm run build`):
 * `--version`, `--help`, and against a local Temporal dev server `status job/<unknown>` (one
 * describe call, exit 2), `batch list` (one list call) and `batch status batch/<unknown>` (the
 * batch group's definitions, one describe call, exit 2); `node -e 0` is the floor of any Node
 * program on this machine. Needs GNU time (`/usr/bin/time`) for the CPU column. Goals (issue 23): --version and --help <= 200 ms; status and list
 * <= 400 ms plus their network calls: for those, a second table splits the wall time (./marks.cjs
 * preloaded: Node's start, module loading, Temporal's connect, the calls, the exit). The 1-minute
 * load average is printed before and after.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { temporalEnv } from '../../test/helpers/orchestrator';
import { benchArgs, runBench } from '../main';

const USAGE = `
usage: npx tsx bench/cli/start.ts [options]   (npm run bench:cli; \`npm run build\` first)
  --runs N   runs of each command, medians (10)
  --help     this text`;

const values = benchArgs(USAGE, { runs: { type: 'string', default: '10' } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`--runs: a positive integer, not ${values.runs}\n${USAGE}`);
  process.exit(2);
}
const root = join(__dirname, '..', '..');
const bin = join(root, 'bin', 'sluice.cjs');

const mid = (xs: number[]): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Where a command's wall time goes (ms), from ./marks.cjs preloaded into it. */
type Split = Record<'boot' | 'load' | 'connect' | 'calls' | 'exit' | 'other', number>;

/** Medians of each part of `sluice ...args`'s wall time over `runs` runs with ./marks.cjs preloaded. */
function split(args: string[], env: NodeJS.ProcessEnv): Split {
  const seen: Split[] = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, ['-r', join(__dirname, 'marks.cjs'), bin, ...args], {
      env,
      encoding: 'utf8',
    });
    const line = r.stderr.split('\n').find((l) => l.startsWith('sluice-marks '));
    if (!line) throw new Error(`no marks from sluice ${args.join(' ')}:\n${r.stderr}`);
    seen.push(JSON.parse(line.slice('sluice-marks '.length)) as Split);
  }
  const keys = Object.keys(seen[0]!) as (keyof Split)[];
  return Object.fromEntries(keys.map((k) => [k, mid(seen.map((s) => s[k]))])) as Split;
}

/**
 * Medians of `node ...args`: wall time and CPU time (user + system, from GNU time), ms. On a busy
 * machine the wall time grows with the load; the CPU time much less.
 */
function median(args: string[], env: NodeJS.ProcessEnv): { wall: number; cpu: number } {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    const r = spawnSync('/usr/bin/time', ['-f', '%U %S', process.execPath, ...args], { env, encoding: 'utf8' });
    wall.push(Number(process.hrtime.bigint() - t) / 1e6);
    const [user, sys] = r.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
    cpu.push(((user ?? NaN) + (sys ?? NaN)) * 1000);
  }
  return { wall: mid(wall), cpu: mid(cpu) };
}

async function main(): Promise<void> {
  if (!existsSync(join(root, 'dist', 'client', 'cli', 'main.js'))) throw new Error('run `npm run build` first');
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SLUICE|TEMPORAL)_/.test(k)));
  console.log(`load average before: ${loadavg()[0]!.toFixed(2)} (${runs} runs each, medians)`);
  const rows: [string, { wall: number; cpu: number }, number][] = [
    ['node -e 0 (floor)', median(['-e', '0'], env), 0],
    ['sluice --version', median([bin, '--version'], env), 200],
    ['sluice --help', median([bin, '--help'], env), 200],
  ];
  const temporal = await temporalEnv();
  const splits: [string, Split][] = [];
  try {
    const stack = { ...env, TEMPORAL_ADDRESS: temporal.address };
    rows.push(['sluice status job/none', median([bin, 'status', 'job/none'], stack), 400]);
    rows.push(['sluice batch list', median([bin, 'batch', 'list'], stack), 400]);
    rows.push(['sluice batch status b/none', median([bin, 'batch', 'status', 'batch/none'], stack), 400]);
    splits.push(['sluice status job/none', split(['status', 'job/none'], stack)]);
    splits.push(['sluice batch list', split(['batch', 'list'], stack)]);
    splits.push(['sluice batch status b/none', split(['batch', 'status', 'batch/none'], stack)]);
  } finally {
    await temporal.teardown();
  }
  console.log(`${'command'.padEnd(26)}  wall ms  cpu ms`);
  for (const [what, { wall, cpu }, goal] of rows)
    console.log(
      `${what.padEnd(26)} ${wall.toFixed(0).padStart(8)} ${cpu.toFixed(0).padStart(7)}${goal ? `  (goal: wall <= ${goal} ms)` : ''}`,
    );
  // The goal's "400 ms" is boot + load + other (+ exit); connect and calls are the network's.
  console.log(`\nwhere the wall time goes (medians, ms; ./marks.cjs): boot + load + other is the command's own`);
  console.log(
    `${'command'.padEnd(26)}  ${['boot', 'load', 'connect', 'calls', 'exit', 'other', 'own'].map((h) => h.padStart(8)).join('')}`,
  );
  for (const [what, s] of splits) {
    const own = s.boot + s.load + s.other + s.exit;
    const cells = [s.boot, s.load, s.connect, s.calls, s.exit, s.other, own].map((v) => String(v).padStart(8));
    console.log(`${what.padEnd(26)}  ${cells.join('')}`);
  }
  console.log(`load average after: ${loadavg()[0]!.toFixed(2)}`);
}

runBench(main);
