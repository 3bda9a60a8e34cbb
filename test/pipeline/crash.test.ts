/**
 * A pipeline survives SIGKILLs mid-run: its daemon alone, then the whole stack at once (the Temporal
 * dev server, the platform and the daemon; Temporal started again on its SQLite file), then the
 * daemon again. Every input ends with exactly one result line, and the platform (not sluice) counts
 * exactly one remote job per input per stage element (issue 22).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PipelineClient } from '../../client/pipeline';
import { type PipelineState } from '../../contracts';
import { inputFile } from '../batch/helpers';
import { crashStack } from '../helpers/crash-stack';
import { awaitState, call, withinOrState } from '../helpers/platform';
import { pipelineResults } from './helpers';

describe('a pipeline through crashes', () => {
  const ctx = crashStack({ taskQueue: 'pipeline-crash', temporal: 'file' });

  it('the daemon SIGKILLed, then the whole stack with Temporal, then the daemon: every input exactly once, one remote job per input per stage element', async () => {
    const stack = ctx.s;
    const sleep = (await stack.start()).sleep!;
    // 30 inputs: each crash still finds inputs in flight in both stages (at most 20 at once).
    const n = 30;
    const { file, dir } = inputFile(Array.from({ length: n }, (_, i) => ({ i })));
    const outDir = join(dir, 'out');
    const pipeline = new PipelineClient({
      client: stack.client,
      taskQueue: 'pipeline-crash',
      resultsDir: stack.resultsDir,
    });
    const policy = { retry: { maxAttempts: 6, initialBackoffMs: 200 } };
    const id = await pipeline.start({
      definition: {
        name: 'crash',
        maxInFlight: 20,
        stages: [
          {
            name: 'pair',
            endpoint: sleep,
            each: '[1, 2]',
            input: "{ 'ms': 100, 'i': $.input.i, 'e': $index }",
            concurrency: 8,
            ...policy,
          },
          { name: 'after', endpoint: sleep, input: "{ 'ms': 100, 'i': $.input.i }", concurrency: 8, ...policy },
        ],
      },
      source: file,
      outDir,
      options: { stepsPerRun: 20 },
    });
    /** What a stuck run's message shows of the pipeline: its counts, and each stage's with its batch's. */
    const show = (s: PipelineState) => ({
      phase: s.phase,
      runs: s.runs,
      counts: s.counts,
      stages: s.stages.map(({ name, fed, active, closed, batch: b }) => {
        const batch = b && { phase: b.phase, runs: b.runs, counts: b.counts, waiting: b.waiting };
        return { name, fed, active, closed, batch };
      }),
    });
    /** The inputs done once they are `k` at least (none answers while Temporal restarts); else fails with the last state seen. */
    const doneAtLeast = async (k: number) => {
      const done = (s: PipelineState) => s.counts.done >= k;
      const what = `pipeline ${id}: ${k} inputs done`;
      return (await awaitState(what, () => pipeline.state(id), done, { ms: 240_000, show })).counts.done;
    };
    await doneAtLeast(4);
    await stack.crash('daemon');
    expect(await doneAtLeast(12), 'the whole stack killed mid-run').toBeLessThan(n);
    // The whole stack at once: none of it stops in order or hears of the others' end.
    await stack.crash('temporal', 'platform', 'daemon');
    await doneAtLeast(20);
    await stack.crash('daemon');

    const summary = await withinOrState(pipeline.result(id), 240_000, `pipeline ${id}'s result`, async () =>
      show(await pipeline.state(id)),
    );
    expect(summary.counts.byStatus).toEqual({ COMPLETED: n });
    const results = pipelineResults(outDir, n);
    const ids = new Set<string>();
    for (const r of results.values()) {
      const pair = r.stages.pair as { jobIds: string[] }[];
      const after = r.stages.after as { jobIds: string[] };
      expect(pair, `input ${r.index}`).toHaveLength(2);
      for (const e of [...pair, after]) {
        expect(e.jobIds, `input ${r.index}`).toHaveLength(1);
        ids.add(e.jobIds[0]!);
      }
    }
    expect(ids.size).toBe(3 * n);
    // The platform's own count of the jobs it holds for the endpoint: one per input per stage element, all completed.
    const health = await call(stack.platformUrl, 'GET', `/v2/${sleep}/health`, { key: stack.key });
    expect(health.body.jobs).toMatchObject({ completed: 3 * n, failed: 0, inQueue: 0, inProgress: 0 });
  }, 600_000);
});
