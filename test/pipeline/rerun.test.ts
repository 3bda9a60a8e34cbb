/**
 * `sluice.pipeline.rerun` on the real stack: the inputs that failed at stage 2 run again from stage
 * 2, reading stage 1's kept outputs (a fan-out's, gathered by element) (the platform receives no new stage-1 job), and the merged
 * results hold one line per input.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PipelineRerunError } from '../../client/pipeline-rerun';
import { inputFile, mixedEndpoint, platformJobs, readJsonl } from '../batch/helpers';
import { pipelineResults, pipelineStack } from './helpers';

describe('pipeline rerun', () => {
  const ctx = pipelineStack();

  it('re-runs the failed inputs from the stage where they failed, keeping the earlier stages', async () => {
    const first = mixedEndpoint(ctx.s, 'rerun-first', 2);
    const second = mixedEndpoint(ctx.s, 'rerun-second', 2);
    const N = 10;
    const flaky = (n: number) => n % 3 === 0;
    const { file, dir } = inputFile(
      Array.from({ length: N }, (_, n) => ({ n, flaky: flaky(n), counter: join(dir0(), `flaky-${n}`) })),
    );
    const outDir = join(dir, 'out');
    const id = await ctx.pipeline.start({
      definition: {
        name: 'rerun',
        stages: [
          {
            name: 'first',
            endpoint: first,
            each: '[$.input.n, $.input.n + 100]',
            input: "{ 'kind': 'echo', 'n': $item }",
          },
          {
            name: 'second',
            endpoint: second,
            retry: { maxAttempts: 1 },
            input:
              "$.input.flaky ? { 'kind': 'flaky', 'failTimes': 1, 'counterFile': $.input.counter } : { 'kind': 'echo', 'm': $.input.n * 10 }",
          },
        ],
        output: "{ 'n': $.input.n, 'sum': $sum($.first.output.n), 'second': $.second.output }",
      },
      source: file,
      outDir,
    });
    const failing = Array.from({ length: N }, (_, n) => n).filter(flaky);
    const once = await ctx.pipeline.result(id);
    expect(once.counts.byStatus).toEqual({ COMPLETED: N - failing.length, FAILED: failing.length });
    for (const n of failing)
      expect(pipelineResults(outDir, N).get(n)).toMatchObject({ status: 'FAILED', stage: 'second' });
    expect(platformJobs(ctx.s, first)).toHaveLength(2 * N);
    expect(platformJobs(ctx.s, second)).toHaveLength(N);

    // The handler succeeds on its second attempt: the rerun completes them.
    const rerun = await ctx.pipeline.rerun(id);
    expect(rerun).toMatchObject({ attempt: 2, inputs: failing.length, outDir });
    const again = await ctx.pipeline.result(id);
    expect(again.counts.byStatus).toEqual({ COMPLETED: failing.length });
    // Stage 1 (a fan-out) was not run again; stage 2 ran once more per failed input.
    expect(platformJobs(ctx.s, first)).toHaveLength(2 * N);
    expect(platformJobs(ctx.s, second)).toHaveLength(N + failing.length);
    const results = pipelineResults(outDir, N);
    for (let n = 0; n < N; n++)
      expect(results.get(n), `input ${n}`).toMatchObject({
        status: 'COMPLETED',
        // `sum` reads stage 1's outputs: for a re-run input, the kept ones.
        output: { n, sum: 2 * n + 100, second: flaky(n) ? { attempts: 2 } : { m: n * 10 } },
      });
    expect(readJsonl(join(outDir, 'stages', 'first.jsonl'))).toHaveLength(2 * N);
    expect(readJsonl(join(outDir, 'stages', 'second.jsonl'))).toHaveLength(N);
    expect(readJsonl(join(outDir, 'dead-letter.jsonl'))).toEqual([]);
    // The first attempt's files are kept.
    expect(readJsonl(join(outDir, 'attempts', '1', 'dead-letter.jsonl'))).toHaveLength(failing.length);

    // Nothing failed any more: a second rerun is refused.
    await expect(ctx.pipeline.rerun(id)).rejects.toMatchObject({ code: 'NOTHING_TO_RERUN' });
    await expect(ctx.pipeline.rerun('no-such-pipeline')).rejects.toBeInstanceOf(PipelineRerunError);
  }, 180_000);
});

let counters: string | undefined;
/** A directory for the flaky handler's attempt counters. */
function dir0(): string {
  counters ??= inputFile([]).dir;
  return counters;
}
