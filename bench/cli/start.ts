/**
 * `npm run bench:cli`: how long the compiled `sluice` takes to answer, as a user runs it. Medians of
 * `--runs` (10) runs of `node bin/sluice.cjs ...` (dist/ must be built: `npm run build`):
 * `--version`, `--help`, and against a local Temporal dev server `status job/<unknown>` (one
 * describe call, exit 2) and `batch list` (one list call); `node -e 0` is the floor of any Node
 * program on this machine. Goals (issue 23): --version and --help <= 200 ms; status and list
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

/** Median wall time of `node ...args`, ms. */
function median(args: string[], env: NodeJS.ProcessEnv): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    spawnSync(process.execPath, args, { env, stdio: 'ignore' });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function main(): Promise<void> {
  if (!existsSync(join(root, 'dist', 'client', 'cli', 'main.js'))) throw new Error('run `npm run build` first');
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SLUICE|TEMPORAL)_/.test(k)));
  console.log(`load average before: ${loadavg()[0]!.toFixed(2)} (${runs} runs each, medians)`);
  const rows: [string, number, number][] = [
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
  for (const [what, ms, goal] of rows)
    console.log(`${what.padEnd(26)} ${ms.toFixed(0).padStart(5)} ms${goal ? `  (goal <= ${goal} ms)` : ''}`);
  console.log(`load average after: ${loadavg()[0]!.toFixed(2)}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
