/**
 * The batch's `--per-job-workflows` mode on the real stack: each input its own child job workflow
 * `batch/<id>/<index>`, with the bulk mode's outcome files, controls and state query.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { batchChildId } from '../../contracts/names';
import { cleanEnv, sluice } from '../cli/run-sluice';
import { eventually } from '../helpers/platform';
import { batchStack, inputFile, mixedEndpoint, platformJobs, readJsonl, resultsOf } from './helpers';

/** Most jobs of one key running at once, from the handler's start/end trace. */
function maxConcurrentPerKey(traceFile: string): Map<string, number> {
  const events = readFileSync(traceFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [what, key, at] = l.split(' ');
      return { what: what!, key: key!, at: Number(at) };
    });
  // Ends before starts at the same millisecond: a slot freed and taken again is not two at once.
  events.sort((a, b) => a.at - b.at || (a.what === 'end' ? -1 : 1));
  const running = new Map<string, number>();
  const max = new Map<string, number>();
  for (const e of events) {
    const n = (running.get(e.key) ?? 0) + (e.what === 'start' ? 1 : -1);
    running.set(e.key, n);
    max.set(e.key, Math.max(max.get(e.key) ?? 0, n));
  }
  return max;
}

/** The mixed-outcome batch's inputs. */
const N = 100;

describe('batch workflow (per-job-workflows mode)', () => {
  const ctx = batchStack();
  const childStatus = async (id: string, i: number) =>
    (await ctx.s.env.client.workflow.getHandle(batchChildId(id, i)).describe()).status.name;

  // 100 inputs hold every outcome (two bad lines, five failures, three flaky) and stay in one run (childrenPerRun 1000).
  it('100 mixed inputs: one result line per index, the summary adds up, each input its own child workflow', async () => {
    const ep = mixedEndpoint(ctx.s, 'perjob-mixed');
    const { dir } = inputFile([]);
    const lines: (object | string)[] = [];
    const expected = new Map<number, string>();
    let flaky = 0;
    for (let i = 0; i < N; i++) {
      if (i % 50 === 7) {
        lines.push(i % 100 === 7 ? '{not json' : '"a string"');
        expected.set(i, 'BAD_INPUT');
      } else if (i % 20 === 3) {
        lines.push({ kind: 'fail', message: `no good ${i}` });
        expected.set(i, 'FAILED');
      } else if (i % 40 === 5) {
        lines.push({ input: { kind: 'flaky', failTimes: 1, counterFile: join(dir, `flaky-${i}`) } });
        flaky++;
        expected.set(i, 'COMPLETED');
      } else {
        lines.push({ kind: 'echo', n: i, blob: 'x'.repeat(i === 1 ? 100_000 : 10) });
        expected.set(i, 'COMPLETED');
      }
    }
    const { file } = inputFile(lines);
    const outDir = join(dir, 'out');
    const id = await ctx.batch.start({
      endpointId: ep,
      source: file,
      outDir,
      options: { perJobWorkflows: true, concurrency: 20, retry: { maxAttempts: 2, initialBackoffMs: 50 } },
    });
    const summary = await ctx.batch.result(id);

    const results = resultsOf(outDir, [...expected.keys()]);
    for (const [i, status] of expected) expect(results.get(i)!.status, `index ${i}`).toBe(status);
    expect(results.get(3)).toMatchObject({
      status: 'FAILED',
      attempts: 2,
      error: expect.stringMatching(/no good 3/),
      remoteJobIds: [expect.any(String)],
    });
    expect(results.get(5)).toMatchObject({ status: 'COMPLETED', attempts: 2, output: { attempts: 2 } });
    // Outputs come from the results store (the children keep none in history), big ones too.
    expect(results.get(2)).toMatchObject({ status: 'COMPLETED', attempts: 1, output: { kind: 'echo', n: 2 } });
    expect((results.get(1)!.output as { blob: string }).blob).toHaveLength(100_000);
    expect(results.get(7)!.error).toMatch(/line 8: not valid JSON/);

    const count = (st: string) => [...expected.values()].filter((x) => x === st).length;
    expect(summary).toMatchObject({
      phase: 'done',
      counts: { total: N, done: N, submitted: N - count('BAD_INPUT'), inFlight: 0 },
    });
    expect(summary.counts.byStatus).toEqual({
      COMPLETED: count('COMPLETED'),
      FAILED: count('FAILED'),
      BAD_INPUT: count('BAD_INPUT'),
    });
    expect(summary.counts.retries).toBe(count('FAILED') + flaky); // each fail retried once, each flaky once
    expect(JSON.parse(readFileSync(join(outDir, 'summary.json'), 'utf8'))).toMatchObject({
      phase: 'done',
      counts: { done: N, byStatus: summary.counts.byStatus },
    });
    expect(readJsonl(join(outDir, 'dead-letter.jsonl'))).toHaveLength(count('FAILED'));
    expect(platformJobs(ctx.s, ep)).toHaveLength(N - count('BAD_INPUT'));

    // The children exist in Temporal by their deterministic ids; a bad line has none.
    expect(await childStatus(id, 2)).toBe('COMPLETED');
    expect(await childStatus(id, 3)).toBe('FAILED');
    await expect(childStatus(id, 7)).rejects.toThrow(/not found/i);
    // The parent's history holds no input and no output (only positions, ids and error heads).
    const payloads: string[] = [];
    JSON.stringify(await ctx.s.env.client.workflow.getHandle(id).fetchHistory(), (k, v: unknown) => {
      if (k === 'data' && typeof v === 'string') payloads.push(Buffer.from(v, 'base64').toString());
      return v;
    });
    expect(payloads.length).toBeGreaterThan(N);
    expect(payloads.filter((p) => p.includes('xxxxxxxxxx') || p.includes('"kind"')).length).toBe(0);
  }, 180_000);

  it('continues as new several times (the window drained each time) with pause and resume around it', async () => {
    const ep = mixedEndpoint(ctx.s, 'perjob-can', 2);
    // 40 inputs, 8 children a run: 5 runs.
    const lines = Array.from({ length: 40 }, (_, i) => ({ kind: 'sleep', ms: 30, i }));
    const { file, dir } = inputFile(lines);
    const outDir = join(dir, 'out');
    const id = await ctx.batch.start({
      endpointId: ep,
      source: file,
      outDir,
      options: { perJobWorkflows: true, concurrency: 4, childrenPerRun: 8 },
    });
    await eventually(async () => (await ctx.batch.state(id)).counts.done >= 12, 60_000);
    const paused = await ctx.batch.pause(id);
    expect(paused.phase).toBe('paused');
    // Children started before the pause finish and submit; after that, nothing new starts.
    await eventually(async () => (await ctx.batch.state(id)).counts.inFlight === 0, 30_000);
    const atPause = (await ctx.batch.state(id)).counts.submitted;
    const jobsAtPause = platformJobs(ctx.s, ep).length;
    await new Promise((r) => setTimeout(r, 1500));
    const during = await ctx.batch.state(id);
    expect(during.counts.submitted).toBe(atPause);
    expect(platformJobs(ctx.s, ep).length).toBe(jobsAtPause);
    expect(during.waiting).toContain('paused');
    await ctx.batch.resume(id);
    const summary = await ctx.batch.result(id);
    expect(summary.runs).toBeGreaterThan(3);
    expect(summary.counts.byStatus).toEqual({ COMPLETED: 40 });
    resultsOf(
      outDir,
      lines.map((_, i) => i),
    );
    expect(platformJobs(ctx.s, ep)).toHaveLength(40);
  }, 180_000);

  it('per-key caps hold as the handler sees them; max-cost and a deadline stop starting children, the rest is NOT_SUBMITTED', async () => {
    const ep = mixedEndpoint(ctx.s, 'perjob-keys', 6);
    const { dir } = inputFile([]);
    const traceFile = join(dir, 'trace.log');
    const lines = Array.from({ length: 24 }, (_, i) => ({
      kind: 'sleep',
      ms: 150,
      tenant: `t${i % 3}`,
      key: `t${i % 3}`,
      traceFile,
    }));
    const { file } = inputFile(lines);
    const keyed = await ctx.batch.start({
      endpointId: ep,
      source: file,
      outDir: join(dir, 'out'),
      options: { perJobWorkflows: true, concurrency: 8, keyPath: '$.tenant', keyLimit: 1 },
    });
    expect((await ctx.batch.result(keyed)).counts.byStatus).toEqual({ COMPLETED: 24 });
    const max = maxConcurrentPerKey(traceFile);
    expect([...max.keys()].sort()).toEqual(['t0', 't1', 't2']);
    for (const [key, n] of max) expect(n, key).toBe(1);

    const costly = Array.from({ length: 40 }, () => ({ kind: 'sleep', ms: 200 }));
    const cost = inputFile(costly);
    const before = platformJobs(ctx.s, ep).length;
    // 3600 USD per worker-hour: one USD per second of execution; each job costs about 0.2.
    const id = await ctx.batch.start({
      endpointId: ep,
      source: cost.file,
      outDir: join(cost.dir, 'out'),
      options: { perJobWorkflows: true, concurrency: 2, pricePerHour: 3600, maxCost: 1 },
    });
    const summary = await ctx.batch.result(id);
    const results = resultsOf(
      join(cost.dir, 'out'),
      costly.map((_, i) => i),
    );
    const sent = [...results.values()].filter((r) => r.status === 'COMPLETED').length;
    expect(sent).toBeGreaterThanOrEqual(5);
    expect(sent).toBeLessThan(15);
    expect(summary.spend).toBeGreaterThanOrEqual(1);
    expect(summary.counts.byStatus.NOT_SUBMITTED).toBe(40 - sent);
    expect([...results.values()].find((r) => r.status === 'NOT_SUBMITTED')!.error).toMatch(/cost-cap/);
    expect(platformJobs(ctx.s, ep).length - before).toBe(sent);

    // A deadline moved to now (live): no child starts from then on; those in flight finish.
    const timed = inputFile(Array.from({ length: 40 }, () => ({ kind: 'sleep', ms: 200 })));
    const dl = await ctx.batch.start({
      endpointId: ep,
      source: timed.file,
      outDir: join(timed.dir, 'out'),
      options: { perJobWorkflows: true, concurrency: 2, deadline: Date.now() + 600_000 },
    });
    await eventually(async () => (await ctx.batch.state(dl)).counts.done >= 4, 30_000);
    const moved = await ctx.batch.configure(dl, { deadline: Date.now() });
    const end = await ctx.batch.result(dl);
    expect(end.counts.submitted).toBe(moved.counts.submitted);
    const timedResults = resultsOf(
      join(timed.dir, 'out'),
      Array.from({ length: 40 }, (_, i) => i),
    );
    expect(end.counts.byStatus.NOT_SUBMITTED).toBe(40 - moved.counts.submitted);
    expect([...timedResults.values()].find((r) => r.status === 'NOT_SUBMITTED')!.error).toMatch(/deadline/);
  });

  it('sluice batch start --per-job: progress, outcome table, status and results as in bulk mode', async () => {
    mixedEndpoint(ctx.s, 'perjob-cli', 2);
    const lines = Array.from({ length: 12 }, (_, i) =>
      i === 5 ? { kind: 'fail', message: 'no good 5' } : { kind: 'echo', i },
    );
    const { file, dir } = inputFile(lines);
    const env = cleanEnv({
      TEMPORAL_ADDRESS: ctx.s.env.address,
      SLUICE_QUEUE_URL: `${ctx.s.platform.url}/v2`,
      SLUICE_GRAPHQL_URL: `${ctx.s.platform.url}/graphql`,
      SLUICE_API_KEY: ctx.s.platform.apiKey,
      SLUICE_RESULTS_DIR: ctx.s.resultsDir,
    });
    const r = await sluice(
      [
        'batch',
        'start',
        file,
        '--endpoint',
        'perjob-cli',
        '--id',
        'perjob-cli',
        '--per-job',
        '--max-attempts',
        '1',
        '--interval',
        '0.5',
      ],
      { env, cwd: dir },
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^outcomes\s+COMPLETED 11 {2}FAILED 1$/m);
    expect(await childStatus('perjob-cli', 5)).toBe('FAILED');
    const [st, res] = await Promise.all([
      sluice(['batch', 'status', 'perjob-cli', '--json'], { env, cwd: dir }),
      sluice(['batch', 'results', 'perjob-cli', '--json'], { env, cwd: dir }),
    ]);
    expect(JSON.parse(st.stdout.trim().split('\n').at(-1)!)).toMatchObject({
      state: { phase: 'done', counts: { done: 12, byStatus: { COMPLETED: 11, FAILED: 1 } } },
    });
    expect(
      res.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { index: number })
        .map((l) => l.index)
        .sort((a, b) => a - b),
    ).toEqual(lines.map((_, i) => i));
  });

  it('retry-failed re-runs only the failed indices as new children; results merge to one line per index', async () => {
    const ep = mixedEndpoint(ctx.s, 'perjob-retry', 2);
    const { dir } = inputFile([]);
    const fails = [2, 9];
    const flaky = [5, 11];
    const lines = Array.from({ length: 14 }, (_, i) =>
      fails.includes(i)
        ? { kind: 'fail', message: `no good ${i}` }
        : flaky.includes(i)
          ? { input: { kind: 'flaky', failTimes: 1, counterFile: join(dir, `flaky-${i}`) } }
          : { kind: 'echo', n: i },
    );
    const { file } = inputFile(lines);
    const outDir = join(dir, 'out');
    const id = await ctx.batch.start({
      endpointId: ep,
      source: file,
      outDir,
      options: { perJobWorkflows: true, concurrency: 4, retry: { maxAttempts: 1 } },
    });
    expect((await ctx.batch.result(id)).counts.byStatus).toEqual({ COMPLETED: 10, FAILED: 4 });
    const jobsBefore = platformJobs(ctx.s, ep).length;
    const retry = await ctx.batch.rerunFailed(id);
    expect(retry).toMatchObject({ attempt: 2, inputs: 4 });
    const summary = await ctx.batch.result(id);
    expect(summary.counts).toMatchObject({ total: 14, done: 14, byStatus: { COMPLETED: 12, FAILED: 2 } });
    expect(summary.retry).toMatchObject({ attempt: 2, inputs: 4, byStatus: { COMPLETED: 2, FAILED: 2 } });
    // Four new remote jobs, from new runs of the children of the failed indices.
    expect(platformJobs(ctx.s, ep).length - jobsBefore).toBe(4);
    // The platform's side: the new jobs were submitted by new runs of the children (their idempotency keys).
    const keys = platformJobs(ctx.s, ep)
      .slice(jobsBefore)
      .map((j) => j.idempotencyKey!.split('/').slice(0, -1).join('/'))
      .sort();
    expect(keys).toEqual([...fails, ...flaky].map((i) => batchChildId(id, i)).sort());
    for (const i of flaky) expect(await childStatus(id, i)).toBe('COMPLETED');
    const after = resultsOf(
      outDir,
      lines.map((_, i) => i),
    );
    for (const i of flaky) expect(after.get(i)).toMatchObject({ status: 'COMPLETED', output: { attempts: 2 } });
    for (const i of fails)
      expect(after.get(i)).toMatchObject({
        status: 'FAILED',
        error: expect.stringMatching(new RegExp(`no good ${i}`)),
      });
  });

  it('cancel: the children in flight are cancelled with their remote jobs, unstarted inputs are NOT_SUBMITTED', async () => {
    const ep = mixedEndpoint(ctx.s, 'perjob-cancel', 2);
    const lines = Array.from({ length: 30 }, () => ({ kind: 'sleep', ms: 20_000 }));
    const { file, dir } = inputFile(lines);
    const outDir = join(dir, 'out');
    const id = await ctx.batch.start({
      endpointId: ep,
      source: file,
      outDir,
      options: { perJobWorkflows: true, concurrency: 4 },
    });
    await eventually(
      async () => (await ctx.batch.state(id)).counts.inFlight === 4 && platformJobs(ctx.s, ep).length === 4,
      30_000,
    );
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
    const by = (st: string) => [...results.values()].filter((r) => r.status === st);
    expect(by('CANCELLED')).toHaveLength(4);
    // The cancelled inputs name the remote job their child had submitted.
    for (const r of by('CANCELLED')) expect(r.remoteJobIds).toHaveLength(1);
    expect(by('NOT_SUBMITTED')).toHaveLength(26);
    for (const r of by('CANCELLED')) expect(await childStatus(id, r.index)).toBe('CANCELLED');
    expect(platformJobs(ctx.s, ep).filter((j) => j.status === 'IN_QUEUE' || j.status === 'IN_PROGRESS')).toEqual([]);
    expect(platformJobs(ctx.s, ep)).toHaveLength(4);
  });
});
