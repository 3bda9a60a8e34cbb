/**
 * A pipeline's limits on the real stack: its `maxCost` over the sum of its stages' spend stops
 * reading and every stage's submissions (the rest NOT_SUBMITTED, `cost-cap`); its `deadline` ends
 * every stage, the rows fed and never submitted included.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inputFile, mixedEndpoint, platformJobs } from '../batch/helpers';
import { pipelineResults, pipelineStack } from './helpers';

describe('pipeline limits', () => {
  const ctx = pipelineStack();

  it('maxCost: once the stages together spent it, no stage submits and no input is read; the rest ends NOT_SUBMITTED (cost-cap)', async () => {
    const ep = mixedEndpoint(ctx.s, 'pipe-cost', 2);
    const N = 40;
    const { file, dir } = inputFile(Array.from({ length: N }, (_, i) => ({ i })));
    const outDir = join(dir, 'out');
    // 3600 USD per worker-hour: one USD per second of execution; each job costs about 0.2, so 1 USD is ~5 jobs of both stages.
    const stage = { endpoint: ep, concurrency: 2, pricePerHour: 3600 };
    const id = await ctx.pipeline.start({
      definition: {
        name: 'cost',
        maxCost: 1,
        maxInFlight: 4,
        stages: [
          { ...stage, name: 'first', input: "{ 'kind': 'sleep', 'ms': 200 }" },
          { ...stage, name: 'second', input: "{ 'kind': 'sleep', 'ms': 200 }" },
        ],
      },
      source: file,
      outDir,
    });
    const summary = await ctx.pipeline.result(id);
    const results = [...pipelineResults(outDir, N).values()];
    const completed = results.filter((r) => r.status === 'COMPLETED').length;
    const notSubmitted = results.filter((r) => r.status === 'NOT_SUBMITTED');
    expect(summary).toMatchObject({ phase: 'done', stopped: 'cost-cap', counts: { done: N } });
    expect(summary.spend).toBeGreaterThanOrEqual(1);
    // Without the cap all 40 inputs would run both stages (80 jobs); the window and the steps let a few more through.
    const jobs = platformJobs(ctx.s, ep).length;
    expect(jobs).toBeGreaterThanOrEqual(5);
    expect(jobs).toBeLessThan(30);
    expect(notSubmitted.length).toBeGreaterThan(N / 2);
    expect(completed + notSubmitted.length).toBe(N);
    for (const r of notSubmitted) expect(r.error, `input ${r.index}`).toMatch(/cost-cap/);
    // Both stages stopped: the inputs the cap caught in the first stage's feed were never submitted there either.
    expect(summary.counts.byStatus).toEqual({ COMPLETED: completed, NOT_SUBMITTED: notSubmitted.length });
  }, 180_000);

  it('deadline: every stage ends at it, the rows fed and not submitted NOT_SUBMITTED (deadline)', async () => {
    const ep = mixedEndpoint(ctx.s, 'pipe-deadline', 2);
    const N = 30;
    const { file, dir } = inputFile(Array.from({ length: N }, (_, i) => ({ i })));
    const outDir = join(dir, 'out');
    const id = await ctx.pipeline.start({
      definition: {
        name: 'deadline',
        deadline: Date.now() + 4000,
        maxInFlight: 20,
        stages: [
          { name: 'first', endpoint: ep, concurrency: 1, input: "{ 'kind': 'sleep', 'ms': 300 }" },
          { name: 'second', endpoint: ep, concurrency: 1, input: "{ 'kind': 'echo' }" },
        ],
      },
      source: file,
      outDir,
    });
    const summary = await ctx.pipeline.result(id);
    const results = [...pipelineResults(outDir, N).values()];
    const late = results.filter((r) => r.status === 'NOT_SUBMITTED');
    expect(summary).toMatchObject({ phase: 'done', stopped: 'deadline', counts: { done: N } });
    expect(late.length).toBeGreaterThan(0);
    for (const r of late) expect(r.error, `input ${r.index}`).toMatch(/deadline/);
    expect(platformJobs(ctx.s, ep).length).toBeLessThan(2 * N);
  }, 180_000);
});
