/**
 * bench/batch/completion.ts: one batch of short echo jobs, fault-free, with every webhook lost (the
 * daemon's public URL unreachable: a daemon behind NAT), with 8 % of webhooks lost and with 4 % of
 * calls answered 1 to 4 s late, each on a fresh in-process stack; prints the seconds and the ratio to fault-free.
 *
 *   npx tsx bench/batch/completion.ts [--jobs 300] [--concurrency 64] [--workers 8]
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchClient } from '../../client/batch';
import { orchestratorStack, type StackOptions } from '../../test/helpers/orchestrator';
import { addEndpoint, exampleCommand } from '../../test/helpers/platform';
import { benchArgs } from '../main';

const USAGE = `
usage: npx tsx bench/batch/completion.ts [options]
  --jobs N          echo jobs per batch (300)
  --concurrency C   per batch (64)
  --workers W       echo workers (8)
  --help            this text`;

const values = benchArgs(USAGE, {
  jobs: { type: 'string' },
  concurrency: { type: 'string' },
  workers: { type: 'string' },
});
const JOBS = Number(values.jobs ?? 300);
const CONCURRENCY = Number(values.concurrency ?? 64);
const WORKERS = Number(values.workers ?? 8);

/** A JSONL input file of `lines`. */
function inputFile(lines: object[]): { file: string } {
  const file = join(mkdtempSync(join(tmpdir(), 'bench-completion-')), 'in.jsonl');
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return { file };
}

/** Seconds one batch of JOBS echo inputs takes on a fresh stack with `options`. */
async function run(options: StackOptions): Promise<number> {
  const s = await orchestratorStack(options);
  try {
    const batch = new BatchClient({ client: s.env.client, resultsDir: s.resultsDir, resultsUrl: s.resultsUrl });
    const ep = addEndpoint(s.platform, {
      name: 'bench-echo',
      command: exampleCommand('mixed'),
      workersMin: WORKERS,
      workersMax: WORKERS,
      idleTimeout: 60,
    }).id;
    const { file } = inputFile(Array.from({ length: JOBS }, (_, i) => ({ kind: 'echo', i })));
    const outDir = join(mkdtempSync(join(tmpdir(), 'bench-completion-')), 'out');
    // A warm-up job, so the workers are up before the clock starts.
    const warm = await batch.start({
      endpointId: ep,
      source: inputFile([{ kind: 'echo' }]).file,
      outDir: `${outDir}-warm`,
    });
    await batch.result(warm);
    const t0 = Date.now();
    const id = await batch.start({ endpointId: ep, source: file, outDir, options: { concurrency: CONCURRENCY } });
    const summary = await batch.result(id);
    if (summary.counts.byStatus.COMPLETED !== JOBS)
      throw new Error(`not all completed: ${JSON.stringify(summary.counts)}`);
    return (Date.now() - t0) / 1000;
  } finally {
    await s.dispose();
  }
}

async function main(): Promise<void> {
  const base = await run({});
  const rows: [string, number][] = [['fault-free', base]];
  rows.push([
    'every webhook lost (SLUICE_PUBLIC_URL unreachable)',
    await run({ daemon: { SLUICE_PUBLIC_URL: 'http://127.0.0.1:9' } }),
  ]);
  rows.push(['8 % of webhooks lost', await run({ platform: { faults: { seed: 1, webhookLost: 0.08 } } })]);
  rows.push(['4 % of calls 1-4 s late', await run({ platform: { faults: { seed: 1, delay: 0.04 } } })]);
  console.log(`${JOBS} echo inputs, concurrency ${CONCURRENCY}, ${WORKERS} workers`);
  for (const [name, sec] of rows)
    console.log(`${name.padEnd(52)} ${sec.toFixed(1).padStart(6)} s  ${(sec / base).toFixed(2)}x`);
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
