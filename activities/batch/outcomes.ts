/**
 * A batch's outcomes in the results store: each step writes the outcomes decided before it as one
 * segment (rewritten whole on a retry, so every index is written exactly once), with a dead-letter
 * segment of the failed inputs' original lines; the end merges them into the output location.
 */
import { batchKeys, FailureType } from '../../contracts/names';
import { type BatchResultLine, type JobRecord, type RunScope } from '../../contracts';
import { allKeys, type ObjectStore } from '../../results/store/object-store';
import { type BatchInput } from './locations';
import { type Final } from './types';

/** Writes the outcome segment (and dead-letter segment) of step `seq`. */
export async function outcomeSegments(
  store: ObjectStore,
  run: RunScope,
  seq: number,
  finals: Final[],
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
  for (const f of finals) {
    const line: BatchResultLine = { index: f.i, status: f.s, attempts: f.a, remoteJobIds: f.ids, endedAt: f.t1 };
    const rec = f.c ? await recordOf(f.c) : undefined;
    if (rec?.output !== undefined) line.output = rec.output;
    if (f.e !== undefined) line.error = f.e;
    if (f.et !== undefined) line.errorType = f.et;
    if (f.x !== undefined) line.executionTime = f.x;
    if (f.d !== undefined) line.delayTime = f.d;
    if (f.t0 !== undefined) line.submittedAt = f.t0;
    lines.push(line);
    if (
      (f.s === 'FAILED' || f.s === 'TIMED_OUT' || f.s === FailureType.JOB_EXPIRED) &&
      f.o !== undefined &&
      f.l !== undefined
    ) {
      dead.push(JSON.parse(await input.readLineAt(f.o, f.l)));
    }
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
 * (each written whole: a reader never sees half a file); returns the counts.
 */
export async function mergeOutcomes(
  store: ObjectStore,
  run: RunScope,
  out: ObjectStore,
  beat: () => void,
): Promise<{ results: number; deadLetter: number }> {
  const results = await writeCounted(out, 'results.jsonl', segmentLines(store, batchKeys.outcomesPrefix(run), beat));
  const deadLetter = await writeCounted(
    out,
    'dead-letter.jsonl',
    segmentLines(store, batchKeys.deadLetterPrefix(run), beat),
  );
  return { results, deadLetter };
}
