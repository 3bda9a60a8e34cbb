/**
 * `npm run bench:cli`: how long the compiled `sluice` takes to answer, as a user runs it. Medians of
 * `--runs` (10) runs of `node bin/sluice.cjs ...` (dist/ must be built: `npm run build`):
 * `--version`, `--help`, and against a local Temporal dev server `status job/<unknown>` (one
 * describe call, exit 2) and `batch list` (one list call); `node -e 0` is the floor of any Node
 * program on this machine. Needs GNU time (`/usr/bin/time`) for the CPU column. Goals (issue 23): --version and --help <= 200 ms; status and list
 * <= 400 ms plus their network calls. The 1-minute load average is printed before and after.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { temporalEnv } from '../../test/helpers/orchestrator';

const root = join(__dirname, '..', '..');
const bin = join(root, 'bin', 'sluice.cjs');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' } } });
const runs = Number(values.runs);

const mid = (xs: number[]): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

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
  try {
    const stack = { ...env, TEMPORAL_ADDRESS: temporal.address };
    rows.push(['sluice status job/none', median([bin, 'status', 'job/none'], stack), 400]);
    rows.push(['sluice batch list', median([bin, 'batch', 'list'], stack), 400]);
  } finally {
    await temporal.teardown();
  }
  console.log(`${'command'.padEnd(26)}  wall ms  cpu ms`);
  for (const [what, { wall, cpu }, goal] of rows)
    console.log(
      `${what.padEnd(26)} ${wall.toFixed(0).padStart(8)} ${cpu.toFixed(0).padStart(7)}${goal ? `  (goal: wall <= ${goal} ms)` : ''}`,
    );
  console.log(`load average after: ${loadavg()[0]!.toFixed(2)}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
