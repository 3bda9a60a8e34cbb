/**
 * What a pipeline's store forgets once a step is behind it: the round files no input in flight needs
 * (./contexts.ts), the plans of the rounds before `seq`, and, for rounds run before the round files,
 * the per-input contexts of the inputs they ended (their result lines say which). Done by the next
 * step (and the finish), never by the step that ended them: a retried step runs its rounds again and
 * must find every context they loaded.
 */
import { pipelineKeys } from '../../contracts/names';
import { type RunScope } from '../../contracts';
import { type ObjectStore } from '../../results/store/object-store';
import { forgetRoundFiles } from './contexts';
import { ROUND_FILES, type RoundPlan } from './plan';

/** Contexts deleted at once. */
const PARALLEL = 32;
/** Rounds one call forgets at most (a step runs far fewer). */
const MAX_ROUNDS = 1000;

/**
 * Deletes the records of the rounds before `seq` no later round reads: those whose plan is still
 * kept (a round's plan is deleted last, so the rounds forgotten before end the walk). Idempotent.
 */
export async function forgetEnded(store: ObjectStore, run: RunScope, seq: number, beat: () => void): Promise<void> {
  await forgetRoundFiles(store, run, seq);
  const rounds: { k: number; plan: RoundPlan }[] = [];
  for (let k = seq - 1; k >= 0 && rounds.length < MAX_ROUNDS; k--) {
    const plan = (await store.find(pipelineKeys.plan(run, k))) as RoundPlan | undefined;
    if (!plan) break;
    rounds.push({ k, plan });
  }
  // Oldest first: a crash between two leaves the newer ones' plans, so the next walk finds them.
  for (const { k, plan } of rounds.reverse()) {
    if ((plan.v ?? 0) < ROUND_FILES) await forgetPerInput(store, run, k, beat);
    await store.delete(pipelineKeys.plan(run, k));
  }
}

/** A round from before the round files: the contexts of the inputs it ended, one file each. */
async function forgetPerInput(store: ObjectStore, run: RunScope, k: number, beat: () => void): Promise<void> {
  const ended = (await store.lines(pipelineKeys.results(run, k))) as { index: number }[];
  const keys = ended.map((l) => pipelineKeys.context(run, l.index));
  for (let i = 0; i < keys.length; i += PARALLEL) {
    beat();
    await Promise.all(keys.slice(i, i + PARALLEL).map((key) => store.delete(key)));
  }
}
