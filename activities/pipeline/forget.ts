/**
 * What a pipeline's store forgets once a step is behind it: the contexts of the inputs that ended in
 * step `seq - 1` (their result lines say which) and that step's plan. Done by step `seq` (and the
 * finish), never by the step that ended them: a retried step must find every context it loaded.
 */
import { pipelineKeys } from '../../contracts/names';
import { type RunScope } from '../../contracts';
import { type ObjectStore } from '../../results/store/object-store';

/** Contexts deleted at once. */
const PARALLEL = 32;

/** Deletes the records of step `seq - 1` no later step reads; idempotent (a retried step deletes again). */
export async function forgetEnded(store: ObjectStore, run: RunScope, seq: number, beat: () => void): Promise<void> {
  if (seq === 0) return;
  const ended = (await store.lines(pipelineKeys.results(run, seq - 1))) as { index: number }[];
  const keys = ended.map((l) => pipelineKeys.context(run, l.index));
  for (let i = 0; i < keys.length; i += PARALLEL) {
    beat();
    await Promise.all(keys.slice(i, i + PARALLEL).map((k) => store.delete(k)));
  }
  await store.delete(pipelineKeys.plan(run, seq - 1));
}
