/**
 * A rerun of a batch's failed inputs (`retry-failed` in the CLI and in recorded names such as
 * `retryOf`), in the results: keep the ended run's files under a per-attempt name, select the
 * inputs it did not complete (the run's subset record), and merge the new outcomes with the
 * previous ones so results.jsonl still holds exactly one line per input index. Used by the batch
 * activities (selectFailed, finishBatch) and by the client (results while a rerun runs).
 */
import { RETRIED_IF_CANCELLED, RETRIED_OUTCOMES, batchKeys } from '../../contracts/names';
import { type BatchOutcomeStatus, type BatchResultLine, type RunScope } from '../../contracts';
import { StoreError } from '../errors';
import { type ObjectStore } from '../store/object-store';
import { outputStore, valueLines } from './locations';
import { outcomesSoFar, segmentLines, writeCounted } from './outcomes';

/** Where the output files of attempt `attempt` are kept (relative to the output location) when the next attempt starts. */
export const attemptDir = (attempt: number): string => `attempts/${attempt}/`;

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
 * Idempotent: a retried call reuses both. `NO_RESULTS` when the previous run left no results.jsonl.
 */
export async function selectFailed(store: ObjectStore, req: SelectRequest, beat: () => void): Promise<SelectResult> {
  const out = outputStore(req.outDir);
  const kept = attemptDir(req.attempt - 1);
  if (!(await out.has(`${kept}results.jsonl`))) {
    if (!(await out.has('results.jsonl'))) {
      throw new StoreError(
        'NO_RESULTS',
        `no results.jsonl in ${req.outDir}: the retried run left no outcomes to retry`,
      );
    }
    for (const f of OUT_FILES) {
      if (!(await out.has(f))) continue;
      if (f.endsWith('.json')) await out.put(`${kept}${f}`, await out.get(f));
      else await out.writeLines(`${kept}${f}`, valueLines(out, f));
    }
  }
  const key = batchKeys.subset(req.run);
  const statuses = new Set<string>([...RETRIED_OUTCOMES, ...(req.includeCancelled ? RETRIED_IF_CANCELLED : [])]);
  const picked: number[] = [];
  let previous = 0;
  for await (const line of keptLines(out, kept, beat)) {
    previous++;
    if (statuses.has(line.status)) picked.push(line.index);
  }
  if (!(await store.has(key)))
    await store.putLines(
      key,
      picked.sort((a, b) => a - b),
    );
  return { selected: (await subsetOf(store, req.run)).count, previous };
}

/** A run's subset as a bit set (cached: each step of the run asks for it). */
export async function subsetOf(
  store: ObjectStore,
  run: RunScope,
): Promise<{ has: (i: number) => boolean; count: number }> {
  const key = batchKeys.subset(run);
  let s = cache.get(key);
  if (!s) {
    const indices = (await store.lines(key)) as number[];
    const bits = new Uint8Array(((indices.at(-1) ?? 0) >> 3) + 1);
    for (const i of indices) bits[i >> 3]! |= 1 << (i & 7);
    s = { has: (i) => i >> 3 < bits.length && (bits[i >> 3]! & (1 << (i & 7))) !== 0, count: indices.length };
    cache.set(key, s);
    if (cache.size > 16) cache.delete(cache.keys().next().value!);
  }
  return s;
}
const cache = new Map<string, { has: (i: number) => boolean; count: number }>();

/** The kept result lines of attempt folder `kept` (`''`: the output location itself). */
async function* keptLines(out: ObjectStore, kept: string, beat: () => void): AsyncGenerator<BatchResultLine> {
  let n = 0;
  for await (const line of valueLines(out, `${kept}results.jsonl`)) {
    if (++n % 10_000 === 0) beat();
    yield line as BatchResultLine;
  }
}

/**
 * Every input's outcome of a rerun: the previous line of each input it does not re-run,
 * then its own outcomes (those written so far while it runs). `out`: the batch's output location.
 */
export async function* mergedResults(
  store: ObjectStore,
  run: RunScope,
  out: ObjectStore,
  attempt: number,
  beat: () => void = () => undefined,
): AsyncGenerator<BatchResultLine> {
  const sub = (await store.has(batchKeys.subset(run))) ? await subsetOf(store, run) : undefined;
  const previous = attemptDir(attempt - 1);
  if (!sub) {
    // Not selected yet: the previous outcomes are still the batch's.
    const kept = (await out.has(`${previous}results.jsonl`)) ? previous : '';
    for await (const line of keptLines(out, kept, beat)) yield line;
    return;
  }
  for await (const line of keptLines(out, previous, beat)) if (!sub.has(line.index)) yield line;
  yield* outcomesSoFar(store, run);
}

/**
 * results.jsonl of a rerun (previous lines of the inputs not re-run, then the new
 * outcomes) and dead-letter.jsonl (what still failed: this run's dead letters; every earlier one
 * was re-run) in the output location `out`; returns the counts by status over every input.
 */
export async function mergeRetry(
  store: ObjectStore,
  run: RunScope,
  out: ObjectStore,
  attempt: number,
  beat: () => void,
): Promise<{ results: number; deadLetter: number; byStatus: Partial<Record<BatchOutcomeStatus, number>> }> {
  const byStatus: Partial<Record<BatchOutcomeStatus, number>> = {};
  async function* counted(): AsyncGenerator<BatchResultLine> {
    for await (const line of mergedResults(store, run, out, attempt, beat)) {
      byStatus[line.status] = (byStatus[line.status] ?? 0) + 1;
      yield line;
    }
  }
  const results = await writeCounted(out, 'results.jsonl', counted());
  const deadLetter = await writeCounted(out, 'dead-letter.jsonl', segmentLines(store, batchKeys.deadLetterPrefix(run)));
  return { results, deadLetter, byStatus };
}
