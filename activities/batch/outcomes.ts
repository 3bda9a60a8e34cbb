/**
 * A batch's outcomes on disk: each step writes the outcomes decided before it as one segment
 * (rewritten whole on a retry, so every index is written exactly once), with a dead-letter
 * segment of the failed inputs' original lines; the end merges them into the output directory.
 */
import { createWriteStream, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { batchKeys, FailureType } from '../../contracts/names';
import { type BatchResultLine, type JobRecord, type RunScope } from '../../contracts';
import { type ResultsStore } from '../results-store';
import { readLineAt } from './input';
import { type Final } from './types';


/** Writes the outcome segment (and dead-letter segment) of step `seq`. */
export function outcomeSegments(store: ResultsStore, run: RunScope, seq: number, finals: Final[], source: string): void {
  const segments = new Map<number, JobRecord[]>();
  const recordOf = (c: { seq: number; n: number }): JobRecord | undefined => {
    let seg = segments.get(c.seq);
    if (!seg) {
      seg = store.lines(batchKeys.completions(run, c.seq)) as JobRecord[];
      segments.set(c.seq, seg);
    }
    return seg[c.n];
  };
  const lines: BatchResultLine[] = [];
  const dead: unknown[] = [];
  for (const f of finals) {
    const line: BatchResultLine = { index: f.i, status: f.s, attempts: f.a, remoteJobIds: f.ids, endedAt: f.t1 };
    const rec = f.c ? recordOf(f.c) : undefined;
    if (rec?.output !== undefined) line.output = rec.output;
    if (f.e !== undefined) line.error = f.e;
    if (f.et !== undefined) line.errorType = f.et;
    if (f.x !== undefined) line.executionTime = f.x;
    if (f.d !== undefined) line.delayTime = f.d;
    if (f.t0 !== undefined) line.submittedAt = f.t0;
    lines.push(line);
    if ((f.s === 'FAILED' || f.s === 'TIMED_OUT' || f.s === FailureType.JOB_EXPIRED) && f.o !== undefined && f.l !== undefined) {
      dead.push(JSON.parse(readLineAt(source, f.o, f.l)));
    }
  }
  store.putLines(batchKeys.outcomes(run, seq), lines);
  if (dead.length > 0) store.putLines(batchKeys.deadLetter(run, seq), dead);
}

/** Every outcome line written so far, in the order written (results while the batch runs). */
export function* outcomesSoFar(store: ResultsStore, run: RunScope): Generator<BatchResultLine> {
  for (const key of segmentKeys(store, batchKeys.outcomesPrefix(run))) yield* store.lines(key) as BatchResultLine[];
}

function segmentKeys(store: ResultsStore, prefix: string): string[] {
  return store.keys(prefix).filter((k) => k.endsWith('.jsonl')).sort();
}

/**
 * Merges the segments into `<outDir>/results.jsonl` and `<outDir>/dead-letter.jsonl` (each file
 * written to a temporary name and renamed, so a reader never sees half a file); returns the counts.
 */
export async function mergeOutcomes(store: ResultsStore, run: RunScope, outDir: string, beat: () => void): Promise<{ results: number; deadLetter: number }> {
  mkdirSync(outDir, { recursive: true });
  const results = await writeAll(join(outDir, 'results.jsonl'), segmentKeys(store, batchKeys.outcomesPrefix(run)), store, beat);
  const deadLetter = await writeAll(join(outDir, 'dead-letter.jsonl'), segmentKeys(store, batchKeys.deadLetterPrefix(run)), store, beat);
  return { results, deadLetter };
}

async function writeAll(file: string, keys: string[], store: ResultsStore, beat: () => void): Promise<number> {
  const tmp = `${file}.${process.pid}.tmp`;
  const out = createWriteStream(tmp);
  let n = 0;
  for (const key of keys) {
    beat();
    for (const line of store.lines(key)) {
      if (!out.write(`${JSON.stringify(line)}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
      n++;
    }
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  renameSync(tmp, file);
  return n;
}
