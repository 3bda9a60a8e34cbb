/** bench/faults' check of a finished batch: every input exactly once with its own output, and exactly one remote job per input as the platform counts them. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { type BatchResultLine } from '../../contracts';

/** What the check found: `exact` when `problems` is empty. */
export interface Exactness {
  exact: boolean;
  problems: string[];
}

/**
 * Reads `outDir/results.jsonl` of a batch of `n` echo inputs `{"i": index}` and the platform's
 * job counts of the endpoint (a fresh endpoint per run: every job it holds is this batch's).
 */
export function exactness(outDir: string, n: number, platformJobs: Record<string, number>): Exactness {
  const problems: string[] = [];
  const file = join(outDir, 'results.jsonl');
  const lines = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as BatchResultLine)
    : [];
  const seen = new Map<number, number>();
  const jobIds = new Set<string>();
  let notCompleted = 0;
  let wrongOutput = 0;
  let notOneJob = 0;
  for (const l of lines) {
    seen.set(l.index, (seen.get(l.index) ?? 0) + 1);
    if (l.status !== 'COMPLETED') notCompleted++;
    if (!isDeepStrictEqual(l.output, { i: l.index })) wrongOutput++;
    if (l.remoteJobIds.length !== 1) notOneJob++;
    for (const id of l.remoteJobIds) jobIds.add(id);
  }
  const missing = Array.from({ length: n }, (_, i) => i).filter((i) => !seen.has(i)).length;
  const twice = [...seen.values()].filter((c) => c > 1).length;
  if (missing) problems.push(`${missing} inputs without a result`);
  if (twice) problems.push(`${twice} inputs with two results or more`);
  if (notCompleted) problems.push(`${notCompleted} results not COMPLETED`);
  if (wrongOutput) problems.push(`${wrongOutput} outputs not the input's own`);
  if (notOneJob) problems.push(`${notOneJob} inputs with other than one remote job`);
  if (jobIds.size !== lines.length) problems.push(`${jobIds.size} distinct remote jobs for ${lines.length} results`);
  const held = Object.entries(platformJobs)
    .filter(([k]) => k !== 'retried')
    .reduce((a, [, v]) => a + v, 0);
  if (held !== n || platformJobs.completed !== n)
    problems.push(`the platform holds ${held} jobs (${platformJobs.completed} completed) for ${n} inputs`);
  return { exact: problems.length === 0, problems };
}
