/**
 * A pipeline's failures and controls on the real stack: jobs that fail are retried then
 * dead-lettered with their stage (and an expression that fails ends its input, not the step); a
 * later stage runs while an earlier one still does; pause, resume and cancel reach every stage.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/platform';
import { failureMessage } from '../../client/failures';
import { inputFile, mixedEndpoint, platformJobs, readJsonl } from '../batch/helpers';
import { pipelineResults, pipelineStack } from './helpers';

describe('pipeline failures and controls', () => {
  const ctx = pipelineStack();

  it('failed jobs are retried, then dead-lettered with their stage (the original line and the stage)', async () => {
    const ep = mixedEndpoint(ctx.s, 'pipe-fail', 2);
    const N = 12;
    const lines = Array.from({ length: N }, (_, i) =>
      i === 5 ? { id: i } : { id: i, kind: i % 4 === 1 ? 'fail' : 'echo', payload: { n: i } },
    );
    const { file, dir } = inputFile(lines);
    const outDir = join(dir, 'out');
    const id = await ctx.pipeline.start({
      definition: {
        name: 'fails',
        stages: [
          { name: 'first', endpoint: ep, input: "{ 'kind': 'echo', 'n': $.input.id }" },
          {
            name: 'second',
            endpoint: ep,
            input: "$merge([$.input.payload, { 'kind': $.input.kind, 'message': 'no good ' & $.input.id }])",
            retry: { maxAttempts: 2, initialBackoffMs: 50 },
          },
        ],
      },
      source: file,
      outDir,
    });
    const summary = await ctx.pipeline.result(id);
    const results = pipelineResults(outDir, N);
    const failing = lines.map((l, i) => (l.kind === 'fail' ? i : -1)).filter((i) => i >= 0);
    for (const i of failing) {
      const r = results.get(i)!;
      expect(r, `input ${i}`).toMatchObject({
        status: 'FAILED',
        stage: 'second',
        error: expect.stringMatching(/no good/),
      });
      expect(r.stages.second).toMatchObject({ status: 'FAILED', attempts: 2 });
    }
    // Input 5 has no payload: `$merge` of nothing and an object is that object, so it still runs; its kind is missing: echo.
    expect(results.get(5)!.status).toBe('COMPLETED');
    expect(summary.counts.byStatus).toEqual({ COMPLETED: N - failing.length, FAILED: failing.length });
    const dead = readJsonl<{ index: number; stage: string; input: { id: number } }>(join(outDir, 'dead-letter.jsonl'));
    expect(dead.map((d) => d.index).sort((a, b) => a - b)).toEqual(failing);
    for (const d of dead) expect(d).toMatchObject({ stage: 'second', input: { id: d.index } });
  });

  it('an expression that fails for one input ends it at that stage with its code and position', async () => {
    const ep = mixedEndpoint(ctx.s, 'pipe-expr', 1);
    const lines = [{ n: 1 }, { n: 'x' }, { n: 3 }];
    const { file, dir } = inputFile(lines);
    const outDir = join(dir, 'out');
    const id = await ctx.pipeline.start({
      definition: { name: 'expr', stages: [{ name: 'double', endpoint: ep, input: "{ 'v': $.input.n * 2 }" }] },
      source: file,
      outDir,
    });
    await ctx.pipeline.result(id);
    const results = pipelineResults(outDir, 3);
    expect(results.get(0)).toMatchObject({ status: 'COMPLETED', output: { v: 2 } });
    expect(results.get(1)).toMatchObject({
      status: 'FAILED',
      stage: 'double',
      errorType: 'EVALUATION',
      position: expect.any(Number),
      error: expect.stringMatching(/stage "double", field "input"/),
    });
    expect(platformJobs(ctx.s, ep)).toHaveLength(2);
  });

  it('a stage on an endpoint that does not exist fails the pipeline at its start (nothing runs)', async () => {
    const ep = mixedEndpoint(ctx.s, 'pipe-known', 1);
    const { file, dir } = inputFile([{ n: 1 }]);
    const id = await ctx.pipeline.start({
      definition: {
        name: 'missing',
        stages: [
          { name: 'one', endpoint: ep, input: "{ 'n': $.input.n }" },
          { name: 'two', endpoint: 'no-such-endpoint', input: "{ 'n': $.one.output.n }" },
        ],
      },
      source: file,
      outDir: join(dir, 'out'),
    });
    const err = await ctx.pipeline.result(id).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(failureMessage(err)).toMatch(/endpoint no-such-endpoint not found/);
    expect(platformJobs(ctx.s, ep)).toHaveLength(0);
  });

  it('a later stage runs while an earlier one still does (seen in the status)', async () => {
    const slow = mixedEndpoint(ctx.s, 'pipe-slow', 4);
    const fast = mixedEndpoint(ctx.s, 'pipe-fast', 1);
    const N = 8;
    // The last input's job in stage one runs until the test writes its gate file: it is still in flight however long
    // stage two takes (however loaded the machine), and no longer than that.
    const gate = join(mkdtempSync(join(tmpdir(), 'sluice-gate-')), 'open');
    const lines = Array.from({ length: N }, (_, i) => (i === N - 1 ? { untilFile: gate } : { ms: 100 }));
    const { file, dir } = inputFile(lines);
    const outDir = join(dir, 'out');
    const id = await ctx.pipeline.start({
      definition: {
        name: 'overlap',
        stages: [
          { name: 'one', endpoint: slow, input: "$merge([{ 'kind': 'sleep' }, $.input])", concurrency: 8 },
          { name: 'two', endpoint: fast, input: "{ 'kind': 'echo', 'after': $.one.output.slept }" },
        ],
      },
      source: file,
      outDir,
    });
    // Stage two has finished jobs while stage one still has an input in flight (the gated one).
    await eventually(async () => {
      const s = await ctx.pipeline.state(id);
      return (s.stages[1]!.batch?.counts.byStatus.COMPLETED ?? 0) > 0 && s.stages[0]!.active > 0;
    }, 60_000);
    writeFileSync(gate, '');
    const summary = await ctx.pipeline.result(id);
    expect(summary.counts.byStatus).toEqual({ COMPLETED: N });
  });

  it('pause stops every stage, resume goes on, cancel cancels the jobs in flight in every stage', async () => {
    const a = mixedEndpoint(ctx.s, 'pipe-ctl-a', 2);
    const b = mixedEndpoint(ctx.s, 'pipe-ctl-b', 2);
    const N = 40;
    const lines = Array.from({ length: N }, (_, i) => ({ i }));
    const { file, dir } = inputFile(lines);
    const outDir = join(dir, 'out');
    const id = await ctx.pipeline.start({
      definition: {
        name: 'controls',
        maxInFlight: 10,
        stages: [
          { name: 'quick', endpoint: a, input: "{ 'kind': 'sleep', 'ms': 200 }", concurrency: 2 },
          { name: 'long', endpoint: b, input: "{ 'kind': 'sleep', 'ms': 30000 }", concurrency: 2 },
        ],
      },
      source: file,
      outDir,
    });
    await eventually(async () => (await ctx.pipeline.state(id)).stages[1]!.batch?.counts.inFlight === 2, 30_000);
    const paused = await ctx.pipeline.pause(id);
    expect(paused.phase).toBe('paused');
    for (const st of paused.stages) expect(st.batch?.phase).toBe('paused');
    const atPause = platformJobs(ctx.s, a).length + platformJobs(ctx.s, b).length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(platformJobs(ctx.s, a).length + platformJobs(ctx.s, b).length).toBe(atPause);
    const resumed = await ctx.pipeline.resume(id);
    expect(resumed.phase).toBe('running');
    for (const st of resumed.stages) expect(st.batch?.phase).toBe('running');

    await ctx.pipeline.cancel(id);
    const err = await ctx.pipeline.result(id).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    const results = pipelineResults(outDir, N);
    const statuses = new Set([...results.values()].map((r) => r.status));
    expect([...statuses].filter((st) => st !== 'CANCELLED' && st !== 'NOT_SUBMITTED')).toEqual([]);
    expect([...results.values()].filter((r) => r.status === 'CANCELLED' && r.stage === 'long').length).toBe(2);
    // No remote job is left queued or running in either stage.
    await eventually(
      async () =>
        [...platformJobs(ctx.s, a), ...platformJobs(ctx.s, b)].every(
          (j) => j.status !== 'IN_QUEUE' && j.status !== 'IN_PROGRESS',
        ),
      10_000,
    );
  });
});
