/**
 * The batch workflow end to end on the real stack: mixed outcomes with one result per input,
 * continue-as-new with pause and resume around it, and cancel.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { failureMessage } from '../../client/failures';
import { eventually } from '../helpers/platform';
import { batchStack, inputFile, mixedEndpoint, platformJobs, readJsonl, resultsOf } from './helpers';

/** What a scheduled `batchStep` was asked to do (activities/batch/types.ts StepRequest), as its history records it. */
interface StepOrders {
  write: unknown[];
  read?: unknown;
  submit: unknown[];
  retry: unknown[];
  cancel: unknown[];
  poll: unknown[];
  collect: { waitMs: number };
}

describe('batch workflow (bulk mode)', () => {
  const ctx = batchStack();

  it('1,000 inputs with mixed outcomes: one result line per input, the summary adds up, no duplicate remote job', async () => {
    const ep = mixedEndpoint(ctx.s, 'batch-mixed');
    const { dir } = inputFile([]);
    const lines: (object | string)[] = [];
    const expected = new Map<number, string>();
    for (let i = 0; i < 1000; i++) {
      if (i % 200 === 7) {
        lines.push(i % 400 === 7 ? '{not json' : '[1, 2, 3]');
        expected.set(i, 'BAD_INPUT');
      } else if (i % 50 === 3) {
        lines.push({ kind: 'fail', message: `no good ${i}` });
        expected.set(i, 'FAILED');
      } else if (i % 97 === 5) {
        lines.push({ input: { kind: 'flaky', failTimes: 1, counterFile: join(dir, `flaky-${i}`) } });
        expected.set(i, 'COMPLETED');
      } else if (i % 120 === 11) {
        lines.push({ kind: 'sleep', ms: 300 });
        expected.set(i, 'COMPLETED');
      } else {
        lines.push({ kind: 'echo', n: i });
        expected.set(i, 'COMPLETED');
      }
    }
    const { file } = inputFile(lines);
    const outDir = join(dir, 'out');
    const id = await ctx.batch.start({
      endpointId: ep,
      source: file,
      outDir,
      options: { concurrency: 40, retry: { maxAttempts: 2, initialBackoffMs: 50 } },
    });
    const summary = await ctx.batch.result(id);

    const results = resultsOf(outDir, [...expected.keys()]);
    for (const [i, status] of expected) expect(results.get(i)!.status, `index ${i}`).toBe(status);
    expect(results.get(3)).toMatchObject({ status: 'FAILED', attempts: 2, error: expect.stringMatching(/no good 3/) });
    expect(results.get(5)).toMatchObject({ status: 'COMPLETED', attempts: 2, output: { attempts: 2 } });
    expect(results.get(1)).toMatchObject({ status: 'COMPLETED', attempts: 1, output: { kind: 'echo', n: 1 } });
    expect(results.get(7)!.error).toMatch(/line 8: not valid JSON/);

    const count = (st: string) => [...expected.values()].filter((x) => x === st).length;
    expect(summary.phase).toBe('done');
    expect(summary.counts.total).toBe(1000);
    expect(summary.counts.done).toBe(1000);
    expect(summary.counts.byStatus).toEqual({
      COMPLETED: count('COMPLETED'),
      FAILED: count('FAILED'),
      BAD_INPUT: count('BAD_INPUT'),
    });
    expect(JSON.parse(readFileSync(join(outDir, 'summary.json'), 'utf8'))).toMatchObject({
      phase: 'done',
      counts: { done: 1000, byStatus: summary.counts.byStatus },
    });
    // The dead letter holds the failed inputs' lines, runnable as a batch as they are.
    expect(readJsonl(join(outDir, 'dead-letter.jsonl'))).toHaveLength(count('FAILED'));
    // One remote job per valid input (a retry reruns the same job): no duplicate.
    expect(platformJobs(ctx.s, ep)).toHaveLength(1000 - count('BAD_INPUT'));
    // History stays small: well under one event per job.
    const events = (await ctx.s.env.client.workflow.getHandle(id).fetchHistory()).events ?? [];
    expect(events.length).toBeLessThan(1000);
    // The finish writes the last outcomes itself: no step before it only writes (issue 23: a round trip after the last job).
    const scheduled = events.flatMap((e) => {
      const a = e.activityTaskScheduledEventAttributes;
      const data = a?.input?.payloads?.[0]?.data;
      return a && data
        ? [{ type: a.activityType?.name, req: JSON.parse(Buffer.from(data).toString()) as StepOrders }]
        : [];
    });
    // A batch this small finishes in a local activity, in the workflow task that then closes it (issue 23):
    // no finishBatch activity, one workflow task after the last step's completion.
    expect(scheduled.filter((x) => x.type === 'finishBatch')).toEqual([]);
    const lastStepDone = events.map((e) => !!e.activityTaskCompletedEventAttributes).lastIndexOf(true);
    const after = events.slice(lastStepDone + 1);
    expect(after.filter((e) => e.workflowTaskStartedEventAttributes)).toHaveLength(1);
    expect(after.some((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toBe(true);
    expect(after.at(-1)?.workflowExecutionCompletedEventAttributes).toBeTruthy();
    // The first step opens the batch (its checks, count and price): no openBatch activity and workflow task before it.
    expect(scheduled[0]?.type).toBe('batchStep');
    expect(scheduled.filter((x) => x.type === 'openBatch')).toEqual([]);
    const onlyWrites = scheduled.filter(
      ({ type, req }) =>
        type === 'batchStep' &&
        req.write.length > 0 &&
        !req.read &&
        [req.submit, req.retry, req.cancel, req.poll].every((x) => x.length === 0) &&
        req.collect.waitMs === 0,
    );
    expect(onlyWrites).toEqual([]);
  });

  it('an unknown endpoint fails the batch with its reason, before any submission', async () => {
    const ep = mixedEndpoint(ctx.s, 'batch-open');
    const { file, dir } = inputFile([{ kind: 'echo', n: 1 }]);
    const id = await ctx.batch.start({ endpointId: 'no-such-endpoint', source: file, outDir: join(dir, 'out') });
    const err = await ctx.batch.result(id).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failureMessage(err)).toMatch(/endpoint no-such-endpoint not found/);
    expect(platformJobs(ctx.s, ep)).toHaveLength(0);
  });

  it('continues as new several times with pause and resume around it; nothing is submitted while paused', async () => {
    const ep = mixedEndpoint(ctx.s, 'batch-can', 2);
    const lines = Array.from({ length: 240 }, (_, i) => ({ kind: 'sleep', ms: 30, i }));
    const { file, dir } = inputFile(lines);
    const outDir = join(dir, 'out');
    const id = await ctx.batch.start({
      endpointId: ep,
      source: file,
      outDir,
      options: { concurrency: 6, stepsPerRun: 2 },
    });
    await eventually(async () => (await ctx.batch.state(id)).counts.done >= 40, 30_000);
    const paused = await ctx.batch.pause(id);
    expect(paused.phase).toBe('paused');
    const atPause = platformJobs(ctx.s, ep).length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(platformJobs(ctx.s, ep).length).toBe(atPause);
    const during = await ctx.batch.state(id);
    expect(during.waiting).toContain('paused');
    await ctx.batch.resume(id);
    const summary = await ctx.batch.result(id);
    expect(summary.runs).toBeGreaterThan(3);
    expect(summary.counts.byStatus).toEqual({ COMPLETED: 240 });
    resultsOf(
      outDir,
      lines.map((_, i) => i),
    );
    expect(platformJobs(ctx.s, ep)).toHaveLength(240);
  });

  it('cancel: in-flight remote jobs are cancelled, unsent inputs are NOT_SUBMITTED, each index once', async () => {
    const ep = mixedEndpoint(ctx.s, 'batch-cancel', 2);
    const lines = Array.from({ length: 100 }, () => ({ kind: 'sleep', ms: 20_000 }));
    const { file, dir } = inputFile(lines);
    const outDir = join(dir, 'out');
    const id = await ctx.batch.start({ endpointId: ep, source: file, outDir, options: { concurrency: 5 } });
    await eventually(async () => (await ctx.batch.state(id)).counts.inFlight === 5, 30_000);
    // Pause answers while the 20 s jobs still run: it waits for no job, only for the step in progress.
    const paused = await ctx.batch.pause(id);
    expect(paused.counts.inFlight).toBe(5);
    expect(paused.counts.done).toBe(0);
    await ctx.batch.cancel(id);
    const err = await ctx.batch.result(id).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    const results = resultsOf(
      outDir,
      lines.map((_, i) => i),
    );
    const by = (st: string) => [...results.values()].filter((r) => r.status === st).length;
    expect(by('CANCELLED')).toBe(5);
    expect(by('NOT_SUBMITTED')).toBe(95);
    expect(platformJobs(ctx.s, ep).filter((j) => j.status === 'IN_QUEUE' || j.status === 'IN_PROGRESS')).toEqual([]);
  });
});
