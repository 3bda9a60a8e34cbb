/**
 * A batch's outcomes in the results store: each step writes the outcomes decided before it as one
 * segment (rewritten whole on a retry, so every index is written exactly once), with a dead-letter
 * segment of the failed inputs' original lines; the end merges them into the output location.
 * The batch activities turn the workflow's decisions into {@link OutcomeEntry}s
 * (activities/batch/outcomes.ts).
 */
import { batchKeys, FailureType } from '../../contracts/names';
import { type BatchResultLine, type JobRecord, type RunScope } from '../../contracts';
import { allKeys, type ObjectStore } from '../store/object-store';
import { type BatchInput } from './locations';

/** One input's outcome as a step writes it. */
export interface OutcomeEntry {
  /** Its result line, without the output (read from the completion segment). */
  line: BatchResultLine;
  /** Where the collected record with the output is: the completion segment of step `seq`, line `n`. */
  completion?: { seq: number; n: number };
  /** Where its input line is (byte offset and length), for the dead-letter segment. */
  input?: { offset: number; length: number };
}

/** Outcomes whose input line goes to the dead-letter file. */
const DEAD: ReadonlySet<string> = new Set(['FAILED', 'TIMED_OUT', FailureType.JOB_EXPIRED]);

/** Writes the outcome segment (and dead-letter segment) of step `seq`. */
export async function writeOutcomeSegment(
  store: ObjectStore,
  run: RunScope,
  seq: number,
  entries: OutcomeEntry[],
  input: BatchInput,
): Promise<void> {
  const segments = new Map<number, JobRecord[]>();
  const recordOf = async (c: { seq: number; n: number }): Promise<JobRecord | undefined> => {
    let seg = segments.get(c.seq);
    if (!seg) {
      seg = (await store.lines(batchKeys.completions(run, c.seq))) as JobRecord[];
      segments.set(c.seq, seg);
    }
    return seg[c.n];
  };
  const lines: BatchResultLine[] = [];
  const dead: unknown[] = [];
  for (const e of entries) {
    const rec = e.completion ? await recordOf(e.completion) : undefined;
    // The output goes after endedAt, where the lines of earlier versions had it.
    const { index, status, attempts, remoteJobIds, endedAt, ...rest } = e.line;
    const output = rec?.output !== undefined ? { output: rec.output } : {};
    const line: BatchResultLine = { index, status, attempts, remoteJobIds, endedAt, ...output, ...rest };
    lines.push(line);
    if (DEAD.has(line.status) && e.input) dead.push(JSON.parse(await input.readLineAt(e.input.offset, e.input.length)));
  }
  await store.putLines(batchKeys.outcomes(run, seq), lines);
  if (dead.length > 0) await store.putLines(batchKeys.deadLetter(run, seq), dead);
}

/** Every outcome line written so far, in the order written (results while the batch runs). */
export async function* outcomesSoFar(store: ObjectStore, run: RunScope): AsyncGenerator<BatchResultLine> {
  for (const key of await segmentKeys(store, batchKeys.outcomesPrefix(run)))
    yield* (await store.lines(key)) as BatchResultLine[];
}

/** The segments under `prefix`, in order (their names are zero-padded step numbers). */
export async function segmentKeys(store: ObjectStore, prefix: string): Promise<string[]> {
  return (await allKeys(store, prefix)).filter((k) => k.endsWith('.jsonl')).sort();
}

/** The lines of every segment under `prefix`, in order, one segment in memory at a time. */
export async function* segmentLines(
  store: ObjectStore,
  prefix: string,
  beat: () => void = () => undefined,
): AsyncGenerator<unknown> {
  for (const key of await segmentKeys(store, prefix)) {
    beat();
    yield* await store.lines(key);
  }
}

/** Writes `lines` to the value `key` of `out` (streamed; a reader never sees half of it); returns how many. */
export async function writeCounted(out: ObjectStore, key: string, lines: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  await out.writeLines(
    key,
    (async function* () {
      for await (const line of lines) {
        n++;
        yield line;
      }
    })(),
  );
  return n;
}

/**
 * Merges the segments into `results.jsonl` and `dead-letter.jsonl` of the output location `out`
 * (each written whole, both at once: a reader never sees half a file); returns the counts.
 */
export async function mergeOutcomes(
  store: ObjectStore,
  run: RunScope,
  out: ObjectStore,
  beat: () => void,
): Promise<{ results: number; deadLetter: number }> {
  // Both at once: each is its own file's write, fsync and rename.
  const [results, deadLetter] = await Promise.all([
    writeCounted(out, 'results.jsonl', segmentLines(store, batchKeys.outcomesPrefix(run), beat)),
    writeCounted(out, 'dead-letter.jsonl', segmentLines(store, batchKeys.deadLetterPrefix(run), beat)),
  ]);
  return { results, deadLetter };
}
