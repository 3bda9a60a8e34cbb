/**
 * Where the daemons of a test keep their results store and a batch writes its outcome files: a
 * shared local directory, or a bucket on a real S3-compatible server (MinIO); one reader of
 * `results.jsonl` for both, so a test switches between them by the location it is given.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BatchResultLine } from '../../contracts';
import { openResultsStore } from '../../results/store/open';
import { startS3Server } from './s3';

/** A results location for one test file (see {@link localResults} and {@link s3Results}). */
export interface ResultsLocation {
  kind: 'dir' | 's3';
  /** The results store: a directory path, or `s3://bucket/prefix`. */
  resultsUrl: string;
  /** The daemons' environment for it: `SLUICE_RESULTS_DIR`, or `SLUICE_RESULTS_URL` and the AWS variables. */
  env: Record<string, string>;
  /** Where a batch named `name` writes results.jsonl, dead-letter.jsonl and summary.json (its `outDir`). */
  out(name: string): string;
  /** The lines of `<out>/results.jsonl`, parsed ([] when absent). */
  resultLines(out: string): Promise<BatchResultLine[]>;
  /** Removes the directory, or stops the server and removes its data. */
  dispose(): Promise<void>;
}

/** A fresh local directory shared by every daemon of the test (one host). */
export function localResults(): ResultsLocation {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-results-'));
  return {
    kind: 'dir',
    resultsUrl: join(dir, 'store'),
    env: { SLUICE_RESULTS_DIR: join(dir, 'store') },
    out: (name) => join(dir, 'out', name),
    resultLines: (out) => linesOf(out, process.env),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A bucket on MinIO (`startS3Server`), the store under `s3://<bucket>/results`, outcome files
 * under `s3://<bucket>/out/<name>`. Needs a daemon that reads `SLUICE_RESULTS_URL` and batches
 * that accept an `s3://` outDir (issue 12's S3 store).
 */
export async function s3Results(): Promise<ResultsLocation> {
  const s3 = await startS3Server();
  return {
    kind: 's3',
    resultsUrl: s3.url('results'),
    env: {
      SLUICE_RESULTS_URL: s3.url('results'),
      ...s3.env,
      // Outcome files go to the bucket beside the store; tests' input files live in temp directories.
      SLUICE_BATCH_ROOTS: [process.cwd(), tmpdir(), s3.url('')].join(','),
    },
    out: (name) => s3.url(`out/${name}`),
    resultLines: (out) => linesOf(out, s3.env),
    dispose: () => s3.stop(),
  };
}

async function linesOf(out: string, env: NodeJS.ProcessEnv): Promise<BatchResultLine[]> {
  const store = openResultsStore(out, { env });
  try {
    return (await store.lines('results.jsonl')) as BatchResultLine[];
  } finally {
    await store.close();
  }
}

/** The lines by index, checked to hold each of `n` indices (0..n-1) exactly once (throws naming the first problems). */
export function everyIndexOnce(lines: BatchResultLine[], n: number): Map<number, BatchResultLine> {
  const byIndex = new Map<number, BatchResultLine>();
  const twice: number[] = [];
  for (const l of lines) {
    if (byIndex.has(l.index)) twice.push(l.index);
    byIndex.set(l.index, l);
  }
  const missing = Array.from({ length: n }, (_, i) => i).filter((i) => !byIndex.has(i));
  const extra = [...byIndex.keys()].filter((i) => !Number.isInteger(i) || i < 0 || i >= n);
  if (twice.length + missing.length + extra.length > 0) {
    throw new Error(
      `results.jsonl: ${twice.length} indices twice (e.g. ${twice.slice(0, 5).join(', ')}), ${missing.length} missing (e.g. ${missing.slice(0, 5).join(', ')}), ${extra.length} out of range`,
    );
  }
  return byIndex;
}
