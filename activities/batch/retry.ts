/**
 * retry-failed on the activity side: select the inputs an ended run did not complete (from its
 * results, kept under a per-attempt name), read only those lines, and merge the new outcomes with
 * the previous ones so results.jsonl still holds exactly one line per input index.
 */
import { copyFileSync, createReadStream, createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { FailureType, RETRIED_IF_CANCELLED, RETRIED_OUTCOMES, batchKeys } from '../../contracts/names';
import { type BatchOutcomeStatus, type BatchResultLine, type RunScope } from '../../contracts';
import { fatal } from '../errors';
import { type ResultsStore } from '../results-store';
import { outcomesSoFar } from './outcomes';

/** What the batch left in `outDir` after attempt `attempt` (results, dead letter, summary), kept when the next attempt starts. */
export const attemptDir = (outDir: string, attempt: number): string => join(outDir, 'attempts', String(attempt));

export interface SelectRequest {
  run: RunScope;
  outDir: string;
  /** This run's attempt (the retried one is `attempt - 1`). */
  attempt: number;
  includeCancelled: boolean;
}

export interface SelectResult {
  /** Inputs this run re-runs. */
  selected: number;
  /** Result lines of the retried run (every input of the batch). */
  previous: number;
}

const OUT_FILES = ['dead-letter.jsonl', 'summary.json', 'results.jsonl'] as const;

/**
 * Keeps the previous attempt's files under `attempts/<n>/` (results.jsonl last: its presence says
 * the copy is whole), then writes the indices to re-run, ascending, to the run's subset record.
 * Idempotent: a retried call reuses both.
 */
export async function selectFailed(store: ResultsStore, req: SelectRequest, beat: () => void): Promise<SelectResult> {
  const kept = attemptDir(req.outDir, req.attempt - 1);
  if (!existsSync(join(kept, 'results.jsonl'))) {
    if (!existsSync(join(req.outDir, 'results.jsonl'))) {
      throw fatal(FailureType.BAD_REQUEST, `no results.jsonl in ${req.outDir}: the retried run left no outcomes to retry`, { outDir: req.outDir });
    }
    mkdirSync(kept, { recursive: true });
    for (const f of OUT_FILES) {
      if (!existsSync(join(req.outDir, f))) continue;
      copyFileSync(join(req.outDir, f), join(kept, `${f}.tmp`));
      renameSync(join(kept, `${f}.tmp`), join(kept, f));
    }
  }
  const key = batchKeys.subset(req.run);
  const statuses = new Set<string>([...RETRIED_OUTCOMES, ...(req.includeCancelled ? RETRIED_IF_CANCELLED : [])]);
  const picked: number[] = [];
  let previous = 0;
  for await (const { line } of keptLines(kept, beat)) {
    previous++;
    if (statuses.has(line.status)) picked.push(line.index);
  }
  if (!store.has(key)) store.putLines(key, picked.sort((a, b) => a - b));
  return { selected: subsetOf(store, req.run).count, previous };
}

/** A run's subset as a bit set (cached: each step of the run asks for it). */
export function subsetOf(store: ResultsStore, run: RunScope): { has: (i: number) => boolean; count: number } {
  const key = batchKeys.subset(run);
  let s = cache.get(key);
  if (!s) {
    const indices = store.lines(key) as number[];
    const bits = new Uint8Array(((indices.at(-1) ?? 0) >> 3) + 1);
    for (const i of indices) bits[i >> 3]! |= 1 << (i & 7);
    s = { has: (i) => i >> 3 < bits.length && (bits[i >> 3]! & (1 << (i & 7))) !== 0, count: indices.length };
    cache.set(key, s);
    if (cache.size > 16) cache.delete(cache.keys().next().value!);
  }
  return s;
}
const cache = new Map<string, { has: (i: number) => boolean; count: number }>();

/** The kept result lines of attempt `kept`, with their text. */
async function* keptLines(kept: string, beat: () => void): AsyncGenerator<{ text: string; line: BatchResultLine }> {
  const file = join(kept, 'results.jsonl');
  if (!existsSync(file)) return;
  let n = 0;
  for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (!text) continue;
    if (++n % 10_000 === 0) beat();
    yield { text, line: JSON.parse(text) as BatchResultLine };
  }
}

/**
 * Every input's outcome of a retry-failed run: the previous line of each input it does not re-run,
 * then its own outcomes (those written so far while it runs).
 */
export async function* mergedResults(store: ResultsStore, run: RunScope, outDir: string, attempt: number, beat: () => void = () => undefined): AsyncGenerator<BatchResultLine> {
  const sub = store.has(batchKeys.subset(run)) ? subsetOf(store, run) : undefined;
  if (!sub) {
    // Not selected yet: the previous outcomes are still the batch's.
    const kept = existsSync(join(attemptDir(outDir, attempt - 1), 'results.jsonl')) ? attemptDir(outDir, attempt - 1) : outDir;
    for await (const { line } of keptLines(kept, beat)) yield line;
    return;
  }
  for await (const { line } of keptLines(attemptDir(outDir, attempt - 1), beat)) if (!sub.has(line.index)) yield line;
  yield* outcomesSoFar(store, run);
}

/**
 * results.jsonl of a retry-failed run (previous lines of the inputs not re-run, then the new
 * outcomes) and dead-letter.jsonl (what still failed: this run's dead letters; every earlier one
 * was re-run); returns the counts by status over every input.
 */
export async function mergeRetry(store: ResultsStore, run: RunScope, outDir: string, attempt: number, beat: () => void): Promise<{ results: number; deadLetter: number; byStatus: Partial<Record<BatchOutcomeStatus, number>> }> {
  mkdirSync(outDir, { recursive: true });
  const byStatus: Partial<Record<BatchOutcomeStatus, number>> = {};
  async function* counted(): AsyncGenerator<BatchResultLine> {
    for await (const line of mergedResults(store, run, outDir, attempt, beat)) {
      byStatus[line.status] = (byStatus[line.status] ?? 0) + 1;
      yield line;
    }
  }
  const results = await writeLines(join(outDir, 'results.jsonl'), counted());
  const dead = store.keys(batchKeys.deadLetterPrefix(run)).filter((k) => k.endsWith('.jsonl')).sort();
  const deadLetter = await writeLines(join(outDir, 'dead-letter.jsonl'), (function* () {
    for (const k of dead) yield* store.lines(k);
  })());
  return { results, deadLetter, byStatus };
}

/** Writes lines to a temporary name and renames it, so a reader never sees half a file. */
async function writeLines(file: string, lines: AsyncIterable<unknown> | Iterable<unknown>): Promise<number> {
  const tmp = `${file}.${process.pid}.tmp`;
  const out = createWriteStream(tmp);
  let n = 0;
  for await (const line of lines) {
    if (!out.write(`${JSON.stringify(line)}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
    n++;
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  renameSync(tmp, file);
  return n;
}
