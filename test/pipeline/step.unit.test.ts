/**
 * A pipeline step retried after its first attempt wrote everything (its daemon died before the
 * step's end was recorded) returns and writes what the first attempt did: the same feed rows, the
 * same counts (activities/pipeline/step.ts), though the contexts it loads are the first attempt's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PipelineDefinition, type BatchResultLine, type RunScope } from '../../contracts';
import { batchKeys, pipelineKeys, stageDirs } from '../../contracts/names';
import { pipelineStep } from '../../activities/pipeline/step';
import { type PipelineStepRequest, type PipelineStepResult } from '../../activities/pipeline/types';
import { batchInput } from '../../results/batch/locations';
import { openResultsStore } from '../../results/store/open';
import { stepRequest } from './step-fixture';

const def = PipelineDefinition.parse({
  name: 'retried',
  maxInFlight: 20,
  stages: [
    { name: 'pair', endpoint: 'e', each: '[1, 2]', input: "{ 'i': $.input.i, 'e': $index }" },
    { name: 'after', endpoint: 'e', input: "{ 'i': $.input.i }" },
  ],
});
const run: RunScope = { workflowId: 'pipeline/retried', runId: 'r1' };
const stageRuns: RunScope[] = def.stages.map((s) => ({ workflowId: `batch/pipeline/retried/${s.name}`, runId: 'b1' }));
const completed = (index: number): BatchResultLine => ({
  index,
  status: 'COMPLETED',
  attempts: 1,
  remoteJobIds: [`job-${index}`],
  endedAt: 1,
});

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('pipeline step', () => {
  it('retried after its first attempt wrote its contexts: the same rows into the next stage, each input moved on once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-pipeline-step-'));
    const store = openResultsStore(join(dir, 'results'));
    const source = join(dir, 'in.jsonl');
    const outDir = join(dir, 'out');
    writeFileSync(source, [0, 1, 2].map((i) => JSON.stringify({ i })).join('\n') + '\n');
    await store.put(pipelineKeys.definition(run), { definition: def, endpoints: ['e', 'e'] });
    const request = (seq: number, res?: PipelineStepResult) =>
      stepRequest({ run, stageRuns, source, outDir }, seq, res);
    const first = await pipelineStep(store, request(0), () => undefined);
    expect(first.stages.map((s) => s.fed)).toEqual([6, 0]);
    // The pair stage's batch ends every element of inputs 0 and 2 (feed rows 0, 1, 4, 5) in one segment.
    await store.putLines(batchKeys.outcomes(stageRuns[0]!, 3), [0, 4, 1, 5].map(completed));

    const req = request(1, first);
    const once = await pipelineStep(store, req, () => undefined);
    expect(once.stages.map(({ entered, left, fed }) => ({ entered, left, fed }))).toEqual([
      { entered: 0, left: 2, fed: 0 },
      { entered: 2, left: 0, fed: 2 },
    ]);
    const again = await pipelineStep(store, req, () => undefined);
    expect(again).toEqual(once);
    const after = await batchInput(stageDirs(outDir, 'after').feed, { feed: true }).readLines(
      { line: 0, offset: 0 },
      10,
    );
    expect(after.lines.map((l) => JSON.parse(l.text).p)).toEqual([
      [0, -1, 1],
      [2, -1, 1],
    ]);
  });

  it('a step of rounds reads a round at a time and tells a stage of its rows when it may wait for them; done again, the same rows', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-pipeline-rounds-'));
    const store = openResultsStore(join(dir, 'results'));
    const source = join(dir, 'in.jsonl');
    const outDir = join(dir, 'out');
    writeFileSync(source, Array.from({ length: 10 }, (_, i) => JSON.stringify({ i })).join('\n') + '\n');
    const one: RunScope = { workflowId: 'pipeline/rounds', runId: 'r1' };
    const single = PipelineDefinition.parse({
      name: 'rounds',
      maxInFlight: 20,
      stages: [{ name: 'only', endpoint: 'e', input: "{ 'i': $.input.i }" }],
    });
    await store.put(pipelineKeys.definition(one), { definition: single, endpoints: ['e'] });
    const batch: RunScope = { workflowId: 'batch/pipeline/rounds/only', runId: 'b1' };
    const req: PipelineStepRequest = {
      run: one,
      seq: 0,
      source,
      outDir,
      stages: [{ run: batch, feed: { line: 0, offset: 0 }, active: 0 }],
      read: { from: { line: 0, offset: 0 }, max: 4 },
      waitMs: 0,
      rounds: { inFlight: 0, ms: 300, maxRead: 4 },
    };
    const told: number[] = [];
    const signal = async (id: string, f: { lines: number; closed: boolean }) => {
      expect({ id, closed: f.closed }).toEqual({ id: batch.workflowId, closed: false });
      told.push(f.lines);
      return true;
    };
    const first = await pipelineStep(store, req, () => undefined, signal);
    expect(first.read).toMatchObject({ lines: 10, eof: true });
    expect(first.stages[0]).toMatchObject({ entered: 10, fed: 10, feed: { line: 10 }, told: 4 });
    expect(first.seqs).toBeGreaterThanOrEqual(3);
    expect(first.signalled).toBe(true);
    // Told at once when it had no input (rows 0-3); rows 4-9 came while it held those: it reads them itself.
    expect(told).toEqual([4]);
    const again = await pipelineStep(store, req, () => undefined, signal);
    expect(again.read).toEqual(first.read);
    expect(again.stages).toEqual(first.stages);
    const fed = await batchInput(stageDirs(outDir, 'only').feed, { feed: true }).readLines({ line: 0, offset: 0 }, 20);
    expect(fed.lines.map((l) => JSON.parse(l.text).p[0])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);

    // Its batch ends rows 0-3 only (it may have stopped before reading 4-9): told of all ten at the step's end.
    told.length = 0;
    await store.putLines(batchKeys.outcomes(batch, 1), [0, 1, 2, 3].map(completed));
    const s0 = first.stages[0]!;
    const next = await pipelineStep(
      store,
      {
        ...req,
        seq: first.seqs!,
        stages: [{ run: batch, feed: s0.feed, active: 10, told: s0.told!, taken: s0.taken! }],
        read: { from: first.read!.cursor, max: 0 },
      },
      () => undefined,
      signal,
    );
    expect(next.stages[0]).toMatchObject({ left: 4, taken: 4, told: 10 });
    expect(next.ended).toEqual({ COMPLETED: 4 });
    expect(told).toEqual([10]);
  });
});
