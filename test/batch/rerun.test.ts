/**
 * A batch rerun on the real stack: a new run of the same batch re-runs only the failed indices
 * (counted by the platform), results.jsonl then holds one line per index (new outcomes merged with
 * the previous ones, which are kept), the summary counts every input; refusals are typed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatchRerunError } from '../../client/batch-rerun';
import { type BatchResultLine, type BatchState } from '../../contracts';
import { eventually } from '../helpers/platform';
import { batchStack, inputFile, mixedEndpoint, platformJobs, readJsonl, resultsOf } from './helpers';

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => (e instanceof BatchRerunError ? e.code : e),
  );

describe('batch retry-failed', () => {
  const ctx = batchStack();
  /** The platform's jobs of one run of a batch, by input index (from the idempotency key `<workflow id>/<run>#<index>#<attempt>`). */
  const jobsOfRun = (ep: string, workflowId: string, runId: string) =>
    new Map(
      platformJobs(ctx.s, ep)
        .filter((j) => j.idempotencyKey?.startsWith(`${workflowId}/${runId}#`))
        .map((j) => [Number(j.idempotencyKey!.split('#')[1]), j] as const)
        .sort(([a], [b]) => a - b),
    );

  it('re-runs only the failed indices as a new run of the same batch; results merge to one line per index; again for what still fails', async () => {
    const ep = mixedEndpoint(ctx.s, 'retry-mixed');
    const { dir } = inputFile([]);
    const fails = [3, 13, 23, 33];
    const flaky = [6, 16, 26, 36];
    const lines: (object | string)[] = Array.from({ length: 40 }, (_, i) =>
      i === 8
        ? '{broken'
        : i === 20
          ? ''
          : fails.includes(i)
            ? { kind: 'fail', message: `no good ${i}` }
            : flaky.includes(i)
              ? { input: { kind: 'flaky', failTimes: 1, counterFile: join(dir, `flaky-${i}`) } }
              : { kind: 'echo', n: i },
    );
    const { file } = inputFile(lines);
    const outDir = join(dir, 'out');
    const indices = lines.map((_, i) => i).filter((i) => i !== 20); // a blank line is no input
    const id = await ctx.batch.start({
      endpointId: ep,
      source: file,
      outDir,
      options: { concurrency: 8, retry: { maxAttempts: 1 } },
    });
    const first = await ctx.batch.result(id);
    expect(first.counts.byStatus).toEqual({ COMPLETED: 30, FAILED: 8, BAD_INPUT: 1 });
    const before = resultsOf(outDir, indices);
    const jobsBefore = platformJobs(ctx.s, ep).length;
    expect(jobsBefore).toBe(38);

    const retry = await ctx.batch.rerunFailed(id);
    expect(retry).toMatchObject({ workflowId: id, attempt: 2, inputs: 8, outDir });
    expect(retry.runId).not.toBe(retry.previousRunId);
    const summary = await ctx.batch.result(id);

    // The platform's side: one new job per failed index, carrying that index's input, and nothing else.
    const jobs = platformJobs(ctx.s, ep);
    expect(jobs).toHaveLength(jobsBefore + 8);
    const rerun = jobsOfRun(ep, id, retry.runId);
    expect([...rerun.keys()]).toEqual([...fails, ...flaky].sort((a, b) => a - b));
    for (const [i, j] of rerun)
      expect(j.input, `index ${i}`).toEqual((lines[i] as { input?: object }).input ?? lines[i]);

    // results.jsonl: one line per index; new outcomes for the re-run indices, the previous lines for the rest.
    const after = resultsOf(outDir, indices);
    for (const i of flaky)
      expect(after.get(i)).toMatchObject({ index: i, status: 'COMPLETED', attempts: 1, output: { attempts: 2 } });
    for (const i of fails)
      expect(after.get(i)).toMatchObject({
        index: i,
        status: 'FAILED',
        error: expect.stringMatching(new RegExp(`no good ${i}`)),
      });
    for (const i of indices.filter((x) => !fails.includes(x) && !flaky.includes(x)))
      expect(after.get(i)).toEqual(before.get(i));
    expect(after.get(8)).toMatchObject({ status: 'BAD_INPUT', error: expect.stringMatching(/line 9: not valid JSON/) });
    // What still failed is the dead letter; the previous attempt's files are kept.
    const dead = readJsonl<{ message: string }>(join(outDir, 'dead-letter.jsonl'));
    expect(dead).toHaveLength(fails.length);
    expect(dead).toEqual(expect.arrayContaining(fails.map((i) => ({ kind: 'fail', message: `no good ${i}` }))));
    expect(
      new Map(readJsonl<BatchResultLine>(join(outDir, 'attempts', '1', 'results.jsonl')).map((l) => [l.index, l])),
    ).toEqual(before);
    expect(readJsonl(join(outDir, 'attempts', '1', 'dead-letter.jsonl'))).toHaveLength(8);
    expect(JSON.parse(readFileSync(join(outDir, 'attempts', '1', 'summary.json'), 'utf8'))).toMatchObject({
      counts: { byStatus: first.counts.byStatus },
    });

    // The summary counts every input and says it is a retry.
    const want = {
      phase: 'done',
      counts: { total: 39, done: 39, byStatus: { COMPLETED: 34, FAILED: 4, BAD_INPUT: 1 } },
      retry: { attempt: 2, of: retry.previousRunId, inputs: 8, byStatus: { COMPLETED: 4, FAILED: 4 } },
    };
    expect(summary).toMatchObject(want);
    expect(JSON.parse(readFileSync(join(outDir, 'summary.json'), 'utf8'))).toMatchObject(want);
    const listed: BatchResultLine[] = [];
    for await (const l of ctx.batch.results(id)) listed.push(l);
    expect(new Map(listed.map((l) => [l.index, l]))).toEqual(after);

    // Again: only what still fails runs (attempt 3); one line per index still.
    const again = await ctx.batch.rerunFailed(id);
    expect(again).toMatchObject({ attempt: 3, inputs: 4, previousRunId: retry.runId });
    const third: BatchState = await ctx.batch.result(id);
    expect(platformJobs(ctx.s, ep)).toHaveLength(jobsBefore + 8 + 4);
    expect(third).toMatchObject({
      counts: { total: 39, byStatus: { COMPLETED: 34, FAILED: 4, BAD_INPUT: 1 } },
      retry: { attempt: 3, inputs: 4, byStatus: { FAILED: 4 } },
    });
    resultsOf(outDir, indices);
    expect(readJsonl(join(outDir, 'attempts', '2', 'results.jsonl'))).toHaveLength(39);
  });

  it('refuses a batch that does not exist, that still runs, or that has nothing failed', async () => {
    const ep = mixedEndpoint(ctx.s, 'retry-refuse', 2);
    expect(await refusal(ctx.batch.rerunFailed('no-such-batch'))).toBe('BATCH_NOT_FOUND');
    const { file, dir } = inputFile(Array.from({ length: 4 }, (_, i) => ({ kind: 'sleep', ms: 1500, i })));
    const id = await ctx.batch.start({
      endpointId: ep,
      source: file,
      outDir: join(dir, 'out'),
      options: { concurrency: 2 },
    });
    await eventually(async () => (await ctx.batch.state(id)).counts.inFlight > 0, 20_000);
    expect(await refusal(ctx.batch.rerunFailed(id))).toBe('BATCH_RUNNING');
    expect((await ctx.batch.result(id)).counts.byStatus).toEqual({ COMPLETED: 4 });
    const nothing = await ctx.batch.rerunFailed(id).catch((e: unknown) => e as BatchRerunError);
    expect(nothing).toBeInstanceOf(BatchRerunError);
    expect(nothing).toMatchObject({
      code: 'NOTHING_TO_RERUN',
      message: expect.stringMatching(/has no failed inputs to re-run/),
    });
    // Nothing was started: the batch's run is the first one, and the platform saw no new job.
    expect((await ctx.batch.result(id)).retry).toBeUndefined();
    expect(platformJobs(ctx.s, ep)).toHaveLength(4);
  });

  it('a cancelled batch: cancelled and unsent inputs run again only with includeCancelled', async () => {
    const ep = mixedEndpoint(ctx.s, 'retry-cancelled', 2);
    const lines = Array.from({ length: 6 }, (_, i) => ({ kind: 'sleep', ms: 1500, i }));
    const { file, dir } = inputFile(lines);
    const outDir = join(dir, 'out');
    const id = await ctx.batch.start({ endpointId: ep, source: file, outDir, options: { concurrency: 2 } });
    await eventually(async () => (await ctx.batch.state(id)).counts.inFlight === 2, 20_000);
    await ctx.batch.cancel(id);
    await ctx.batch.result(id).catch(() => undefined);
    const cancelled = resultsOf(
      outDir,
      lines.map((_, i) => i),
    );
    const redo = [...cancelled.values()]
      .filter((l) => l.status !== 'COMPLETED')
      .map((l) => l.index)
      .sort((a, b) => a - b);
    expect(redo.length).toBeGreaterThanOrEqual(4);

    const nothing = await ctx.batch.rerunFailed(id).catch((e: unknown) => e as BatchRerunError);
    expect(nothing).toMatchObject({
      code: 'NOTHING_TO_RERUN',
      message: expect.stringMatching(/--include-cancelled re-runs them/),
    });
    const jobsBefore = platformJobs(ctx.s, ep).length;
    const retry = await ctx.batch.rerunFailed(id, { includeCancelled: true, options: { concurrency: 6 } });
    expect(retry.inputs).toBe(redo.length);
    const summary = await ctx.batch.result(id);
    expect(summary.counts).toMatchObject({ total: 6, done: 6, byStatus: { COMPLETED: 6 } });
    expect(summary.options.concurrency).toBe(6);
    expect(platformJobs(ctx.s, ep)).toHaveLength(jobsBefore + redo.length);
    const rerun = jobsOfRun(ep, id, retry.runId);
    expect([...rerun.keys()]).toEqual(redo);
    for (const [i, j] of rerun) expect(j.input).toEqual(lines[i]);
    const after = resultsOf(
      outDir,
      lines.map((_, i) => i),
    );
    expect([...after.values()].every((l) => l.status === 'COMPLETED')).toBe(true);
  });
});
