/**
 * The start of a pipeline's rerun (attempt n): keeps the files attempt n-1 wrote in
 * `<out>/attempts/<n-1>/`, and writes what the rerun reads instead of the input file: each FAILED
 * input's context (its line, the stage where it failed, the earlier stages' outcomes with their
 * outputs), so it goes on from that stage and the earlier stages are not run again. The lines of
 * every other input are kept in the run's store, merged with the rerun's own at its finish.
 */
import { RERUN_SOURCE, pipelineAttemptDir, pipelineKeys } from '../../contracts/names';
import { type PipelineResultLine, type RunScope, type StageOutcome } from '../../contracts';
import { type PipelineDefinition } from '../../contracts/pipeline';
import { outputStore, valueLines } from '../../results/batch/locations';
import { type ObjectStore } from '../../results/store/object-store';
import { type InputContext } from './types';

export interface PipelineRerunRequest {
  run: RunScope;
  outDir: string;
  definition: PipelineDefinition;
  /** This run's attempt (2 for the first rerun). */
  attempt: number;
}

/** A stage outcome line of stages/<name>.jsonl. */
type StageLine = StageOutcome & { index: number; element?: number };

/** The files of an attempt, relative to the output location. */
const attemptFiles = (def: PipelineDefinition): string[] => [
  'results.jsonl',
  'dead-letter.jsonl',
  ...def.stages.map((s) => `stages/${s.name}.jsonl`),
];

/** Keeps attempt n-1's files, writes the rerun's source; returns how many inputs it re-runs. */
export async function prepareRerun(store: ObjectStore, req: PipelineRerunRequest, beat: () => void): Promise<number> {
  const def = req.definition;
  const out = outputStore(req.outDir);
  const kept = outputStore(pipelineAttemptDir(req.outDir, req.attempt - 1));
  // Copied once: a retried activity finds them (the output location's are not rewritten before the finish).
  if (!(await kept.has('summary.json'))) {
    for (const f of attemptFiles(def)) if (await out.has(f)) await kept.writeLines(f, valueLines(out, f));
    await kept.put('summary.json', await out.get('summary.json'));
  }
  beat();
  const failed = new Map<number, InputContext>();
  const others: PipelineResultLine[] = [];
  for await (const l of valueLines(kept, 'results.jsonl') as AsyncIterable<PipelineResultLine>) {
    const at = l.status === 'FAILED' ? def.stages.findIndex((s) => s.name === l.stage) : -1;
    const fromOutput = l.status === 'FAILED' && l.stage === 'output';
    if (at < 0 && !fromOutput) others.push(l);
    else failed.set(l.index, { index: l.index, line: null, at: fromOutput ? def.stages.length : at, s: slots(def, l) });
  }
  for await (const d of valueLines(kept, 'dead-letter.jsonl') as AsyncIterable<{ index: number; input: unknown }>) {
    const ctx = failed.get(d.index);
    if (ctx) ctx.line = d.input as InputContext['line'];
  }
  for (const [k, s] of def.stages.entries()) {
    beat();
    const keep: StageLine[] = [];
    for await (const l of valueLines(kept, `stages/${s.name}.jsonl`) as AsyncIterable<StageLine>) {
      const ctx = failed.get(l.index);
      if (!ctx) keep.push(l);
      else if (k < ctx.at) {
        keep.push(l);
        const { index: _i, element, ...o } = l;
        const slot = ctx.s[s.name];
        if (element !== undefined && Array.isArray(slot)) slot[element] = o;
        else ctx.s[s.name] = o;
      }
    }
    await store.putLines(pipelineKeys.keptStageOutcomes(req.run, s.name), keep);
  }
  await store.putLines(pipelineKeys.keptResults(req.run), others);
  const contexts = [...failed.values()].sort((a, b) => a.index - b.index);
  // pipelineRerunSource(outDir, attempt): what the run reads instead of the input file.
  await kept.writeLines(RERUN_SOURCE, contexts);
  return contexts.length;
}

/** The outcome slots of the stages the input reached: an `each` stage one per element (filled from stages/<name>.jsonl). */
function slots(def: PipelineDefinition, l: PipelineResultLine): InputContext['s'] {
  const s: InputContext['s'] = {};
  for (const st of def.stages) {
    const got = l.stages[st.name];
    if (Array.isArray(got)) s[st.name] = got.map(() => null);
  }
  return s;
}
