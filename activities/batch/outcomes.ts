/**
 * What a batch step writes of the outcomes the workflow decided (`Final`, in the step protocol's
 * short keys, ./types.ts): each as a result line in the results layer's outcome segment
 * (results/batch/outcomes.ts, which also keeps the failed inputs' lines in the dead-letter segment).
 */
import { type BatchResultLine, type RunScope } from '../../contracts';
import { type ObjectStore } from '../../results/store/object-store';
import { type BatchInput } from '../../results/batch/locations';
import { writeOutcomeSegment, type OutcomeEntry } from '../../results/batch/outcomes';
import { type Final } from './types';

/** Writes the outcome segment (and dead-letter segment) of step `seq`. */
export async function outcomeSegments(
  store: ObjectStore,
  run: RunScope,
  seq: number,
  finals: Final[],
  input: BatchInput,
): Promise<void> {
  await writeOutcomeSegment(store, run, seq, finals.map(entryOf), input);
}

/** One decided outcome as the results layer writes it. */
function entryOf(f: Final): OutcomeEntry {
  const line: BatchResultLine = { index: f.i, status: f.s, attempts: f.a, remoteJobIds: f.ids, endedAt: f.t1 };
  if (f.e !== undefined) line.error = f.e;
  if (f.et !== undefined) line.errorType = f.et;
  if (f.x !== undefined) line.executionTime = f.x;
  if (f.d !== undefined) line.delayTime = f.d;
  if (f.t0 !== undefined) line.submittedAt = f.t0;
  return {
    line,
    ...(f.c ? { completion: f.c } : {}),
    ...(f.o !== undefined && f.l !== undefined ? { input: { offset: f.o, length: f.l } } : {}),
  };
}
