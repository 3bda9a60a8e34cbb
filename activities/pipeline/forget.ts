/**
 * What a pipeline's store forgets once a step is behind it: the contexts of the inputs that ended in
 * the rounds before `seq` (their result lines say which) and those rounds' plans. Done by the next
 * step (and the finish), never by the step that ended them: a retried step runs its rounds again and
 * must find every context they loaded.
 */
import { pipelineKeys } from '../../contracts/names';
import { type RunScope } from '../../contracts';
import { type ObjectStore } from '../../results/store/object-store';

/** Contexts deleted at once. */
const PARALLEL = 32;
/** Rounds one call forgets at most (a step runs far fewer). */
const MAX_ROUNDS = 1000;

/**
 * Deletes the records of the rounds before `seq` no later round reads: those whose plan is still
 * kept (a round's plan is deleted last, so the rounds forgotten before end the walk). Idempotent.
 */
export async function forgetEnded(store: ObjectStore, run: RunScope, seq: number, beat: () => void): Promise<void> {
  const rounds: number[] = [];
  for (let k = seq - 1; k >= 0 && rounds.length < MAX_ROUNDS; k--) {
    if (!(await store.has(pipelineKeys.plan(run, k)))) break;
    rounds.push(k);
  }
  // Oldest first: a crash between two leaves the newer ones' plans, so the next walk finds them.
  for (const k of rounds.reverse()) {
    const ended = (await store.lines(pipelineKeys.results(run, k))) as { index: number }[];
    const keys = ended.map((l) => pipelineKeys.context(run, l.index));
    for (let i = 0; i < keys.length; i += PARALLEL) {
      beat();
      await Promise.all(keys.slice(i, i + PARALLEL).map((key) => store.delete(key)));
    }
    await store.delete(pipelineKeys.plan(run, k));
  }
}
