/**
 * Where a pipeline keeps its inputs' contexts (activities/pipeline/contexts.ts): one file per round,
 * none per input; an `each` stage's outcomes taken over several steps gathered; the files no input
 * needs deleted by the next step; a run from before the round files still read from its per-input files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PipelineDefinition, type BatchResultLine, type RunScope } from '../../contracts';
import { batchKeys, pipelineKeys, stageDirs } from '../../contracts/names';
import { pipelineStep } from '../../activities/pipeline/step';
import { type PipelineStepResult } from '../../activities/pipeline/types';
import { batchInput } from '../../results/batch/locations';
import { allKeys, type ObjectStore } from '../../results/store/object-store';
import { openResultsStore } from '../../results/store/open';
import { stepRequest } from './step-fixture';

const def = PipelineDefinition.parse({
  name: 'ctx',
  maxInFlight: 20,
  stages: [
    { name: 'pair', endpoint: 'e', each: '[1, 2]', input: "{ 'i': $.input.i, 'e': $index }" },
    { name: 'after', endpoint: 'e', input: "{ 'i': $.input.i, 'n': $count($.pair) }" },
  ],
  output: "{ 'i': $.input.i, 'pair': $count($.pair) }",
});
const done = (index: number): BatchResultLine => ({
  index,
  status: 'COMPLETED',
  attempts: 1,
  remoteJobIds: [`job-${index}`],
  output: { row: index },
  endedAt: 1,
});

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A pipeline of `def` on three inputs, its steps driven by hand (the workflow's part). */
async function setup(id: string) {
  dir = mkdtempSync(join(tmpdir(), 'sluice-pipeline-contexts-'));
  const store = openResultsStore(join(dir, 'results'));
  const source = join(dir, 'in.jsonl');
  const outDir = join(dir, 'out');
  writeFileSync(source, [0, 1, 2].map((i) => JSON.stringify({ i })).join('\n') + '\n');
  const run: RunScope = { workflowId: `pipeline/${id}`, runId: 'r1' };
  const stageRuns: RunScope[] = def.stages.map((s) => ({ workflowId: `batch/pipeline/${id}/${s.name}`, runId: 'b1' }));
  await store.put(pipelineKeys.definition(run), { definition: def, endpoints: ['e', 'e'] });
  let seq = 0;
  let last: PipelineStepResult | undefined;
  /** One step, on `on` (another store object on the same directory: a new daemon, which kept nothing). */
  const step = async (on: ObjectStore = store): Promise<PipelineStepResult> => {
    const req = stepRequest({ run, stageRuns, source, outDir }, seq, last);
    last = await pipelineStep(on, req, () => undefined);
    seq += last.seqs ?? 1;
    return last;
  };
  return { store, run, stageRuns, outDir, step, reopen: () => openResultsStore(join(dir!, 'results')) };
}

const keysOf = (store: ObjectStore, prefix: string): Promise<string[]> => allKeys(store, prefix);

describe('pipeline contexts', () => {
  it('one file per round, none per input; an each stage gathered over several steps; files no input needs deleted', async () => {
    const { store, run, stageRuns, outDir, step } = await setup('contexts-rounds');
    expect((await step()).stages.map((s) => s.fed)).toEqual([6, 0]);
    expect(await keysOf(store, pipelineKeys.contextPrefix(run))).toEqual([]);
    expect(await keysOf(store, pipelineKeys.roundContextsPrefix(run))).toEqual([pipelineKeys.roundContexts(run, 0)]);

    // Element 0 of inputs 0 and 1 (rows 0, 2), then element 1 of each (rows 1, 3) a step later: both move on.
    await store.putLines(batchKeys.outcomes(stageRuns[0]!, 1), [0, 2].map(done));
    expect((await step()).stages[1]!.fed).toBe(0);
    await store.putLines(batchKeys.outcomes(stageRuns[0]!, 2), [1, 3].map(done));
    const moved = await step();
    expect(moved.stages.map(({ entered, left, fed }) => ({ entered, left, fed }))).toEqual([
      { entered: 0, left: 2, fed: 0 },
      { entered: 2, left: 0, fed: 2 },
    ]);
    const after = await batchInput(stageDirs(outDir, 'after').feed, { feed: true }).readLines(
      { line: 0, offset: 0 },
      9,
    );
    expect(after.lines.map((l) => JSON.parse(l.text).input)).toEqual([
      { i: 0, n: 2 },
      { i: 1, n: 2 },
    ]);

    // Inputs 0 and 1 end; input 2 still waits at its first stage: its round file (0) stays, the others go.
    await store.putLines(batchKeys.outcomes(stageRuns[1]!, 1), [0, 1].map(done));
    expect((await step()).ended).toEqual({ COMPLETED: 2 });
    await step();
    const left = await keysOf(store, pipelineKeys.roundContextsPrefix(run));
    expect(left).toContain(pipelineKeys.roundContexts(run, 0));
    expect(left.length).toBeLessThanOrEqual(2);
    // And it still goes on from there.
    await store.putLines(batchKeys.outcomes(stageRuns[0]!, 3), [4, 5].map(done));
    expect((await step()).stages[1]!.fed).toBe(1);
    await store.putLines(batchKeys.outcomes(stageRuns[1]!, 2), [2].map(done));
    expect((await step()).ended).toEqual({ COMPLETED: 1 });
    const results: { index: number; output: unknown }[] = [];
    for (const k of await keysOf(store, pipelineKeys.resultsPrefix(run)))
      results.push(...((await store.lines(k)) as { index: number; output: unknown }[]));
    expect(results.map((r) => r.output)).toEqual([
      { i: 0, pair: 2 },
      { i: 1, pair: 2 },
      { i: 2, pair: 2 },
    ]);
  });

  it('a run from before the round files goes on from its per-input contexts', async () => {
    const { store, run, stageRuns, step, reopen } = await setup('contexts-legacy');
    await step();
    // As the old rounds left it: input 1's context in its own file, and no round file.
    const ctx = { index: 1, line: { i: 1 }, at: 0, s: { pair: [null, null] } };
    for (const k of await keysOf(store, pipelineKeys.roundContextsPrefix(run))) await store.delete(k);
    await store.put(pipelineKeys.context(run, 1), ctx);
    await store.putLines(batchKeys.outcomes(stageRuns[0]!, 1), [2, 3].map(done));
    const res = await step(reopen());
    expect(res.stages[1]).toMatchObject({ entered: 1, fed: 1 });
  });
});
