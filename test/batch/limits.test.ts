/** Batch limits and modes on the real stack: per-key caps (measured by the handler), cost cap, deadline, price, completion by polling. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RestClient } from '../../platform-api';
import { eventually } from '../helpers/platform';
import { batchStack, inputFile, mixedEndpoint, platformJobs, resultsOf } from './helpers';

/** Most jobs of one key running at once, from the handler's start/end trace. */
function maxConcurrentPerKey(traceFile: string): Map<string, number> {
  const running = new Map<string, number>();
  const max = new Map<string, number>();
  const events = readFileSync(traceFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [what, key, at] = l.split(' ');
      return { what: what!, key: key!, at: Number(at) };
    });
  // Ends before starts at the same millisecond: a slot freed and taken again is not two at once.
  events.sort((a, b) => a.at - b.at || (a.what === 'end' ? -1 : 1));
  for (const e of events) {
    const n = (running.get(e.key) ?? 0) + (e.what === 'start' ? 1 : -1);
    running.set(e.key, n);
    max.set(e.key, Math.max(max.get(e.key) ?? 0, n));
  }
  return max;
}

describe('batch limits', () => {
  const ctx = batchStack();

  it('a per-key cap is never exceeded (as the handler sees it), while keys run side by side', async () => {
    const ep = mixedEndpoint(ctx.s, 'batch-keys', 8);
    const { dir } = inputFile([]);
    const traceFile = join(dir, 'trace.log');
    // Jobs long enough that two of a key overlap on a loaded machine too.
    const lines = Array.from({ length: 18 }, (_, i) => ({
      kind: 'sleep',
      ms: 1500,
      tenant: `t${i % 3}`,
      key: `t${i % 3}`,
      traceFile,
    }));
    const { file } = inputFile(lines);
    const id = await ctx.batch.start({
      endpointId: ep,
      source: file,
      outDir: join(dir, 'out'),
      options: { concurrency: 12, keyPath: '$.tenant', keyLimit: 2 },
    });
    const summary = await ctx.batch.result(id);
    expect(summary.counts.byStatus).toEqual({ COMPLETED: 18 });
    const max = maxConcurrentPerKey(traceFile);
    expect([...max.keys()].sort()).toEqual(['t0', 't1', 't2']);
    for (const [key, n] of max) expect(n, key).toBeLessThanOrEqual(2);
    // The cap is what limits: with 3 keys x 2, more than 2 jobs ran at once overall.
    expect(Math.max(...max.values())).toBe(2);
  });

  it('max-cost stops new submissions once the estimated spend reaches it; the rest is NOT_SUBMITTED (cost cap)', async () => {
    const ep = mixedEndpoint(ctx.s, 'batch-cost', 2);
    const lines = Array.from({ length: 60 }, () => ({ kind: 'sleep', ms: 200 }));
    const { file, dir } = inputFile(lines);
    // 3600 USD per worker-hour: one USD per second of execution; each job costs about 0.2.
    const id = await ctx.batch.start({
      endpointId: ep,
      source: file,
      outDir: join(dir, 'out'),
      options: { concurrency: 2, pricePerHour: 3600, maxCost: 1 },
    });
    const summary = await ctx.batch.result(id);
    const results = resultsOf(
      join(dir, 'out'),
      lines.map((_, i) => i),
    );
    const done = [...results.values()].filter((r) => r.status === 'COMPLETED').sort((a, b) => a.endedAt - b.endedAt);
    const sent = done.length;
    // Spend is 1 USD per second of execution. The cap was reached, and then nothing more was sent: the
    // last job sent went out while the spend of every job but those in flight (concurrency 2) was under it.
    expect(summary.spend).toBeGreaterThanOrEqual(1);
    const spendOf = (rs: typeof done): number => rs.reduce((sum, r) => sum + (r.executionTime ?? 0) / 1000, 0);
    expect(spendOf(done)).toBeCloseTo(summary.spend, 6);
    expect(spendOf(done.slice(0, -3))).toBeLessThan(1);
    expect(sent).toBeLessThan(60);
    expect(summary.counts.byStatus.NOT_SUBMITTED).toBe(60 - sent);
    expect([...results.values()].find((r) => r.status === 'NOT_SUBMITTED')!.error).toMatch(/cost-cap/);
    expect(platformJobs(ctx.s, ep)).toHaveLength(sent);
  });

  it('a deadline stops submitting at its time; in-flight jobs finish', async () => {
    const ep = mixedEndpoint(ctx.s, 'batch-deadline', 2);
    const lines = Array.from({ length: 80 }, () => ({ kind: 'sleep', ms: 200 }));
    const { file, dir } = inputFile(lines);
    const id = await ctx.batch.start({
      endpointId: ep,
      source: file,
      outDir: join(dir, 'out'),
      options: { concurrency: 2, deadline: Date.now() + 600_000 },
    });
    await eventually(async () => (await ctx.batch.state(id)).counts.done >= 4, 30_000);
    // The deadline moved to now (live): nothing is submitted from here on.
    const moved = await ctx.batch.configure(id, { deadline: Date.now() });
    const submitted = moved.counts.submitted;
    const summary = await ctx.batch.result(id);
    const results = resultsOf(
      join(dir, 'out'),
      lines.map((_, i) => i),
    );
    const done = [...results.values()].filter((r) => r.status === 'COMPLETED');
    expect(done.length).toBeGreaterThanOrEqual(4);
    expect(done.length).toBeLessThanOrEqual(submitted + 2);
    expect(summary.counts.byStatus.NOT_SUBMITTED).toBe(80 - done.length);
    expect([...results.values()].find((r) => r.status === 'NOT_SUBMITTED')!.error).toMatch(/deadline/);
  });

  it("without a given price, spend is estimated at the endpoint's worker costPerHr (REST pod read)", async () => {
    const ep = mixedEndpoint(ctx.s, 'batch-price', 2);
    const lines = Array.from({ length: 12 }, () => ({ kind: 'sleep', ms: 100 }));
    const { file, dir } = inputFile(lines);
    const id = await ctx.batch.start({
      endpointId: ep,
      source: file,
      outDir: join(dir, 'out'),
      options: { concurrency: 2 },
    });
    const summary = await ctx.batch.result(id);
    const rest = new RestClient({ baseUrl: `${ctx.s.platform.url}/v1`, apiKey: ctx.s.platform.apiKey });
    const workers = (await rest.getEndpoint(ep, { workers: true })).workers ?? [];
    await rest.close();
    expect(workers.length).toBeGreaterThan(0);
    expect(summary.pricePerHour).toBe(workers[0]!.costPerHr);
    // 12 jobs of at least 100 ms each at that price.
    expect(summary.spend).toBeGreaterThanOrEqual((1.2 / 3600) * workers[0]!.costPerHr);
  });

  it("completion 'poll': the service gets no webhook URL, and every input still ends once (mixed outcomes)", async () => {
    const ep = mixedEndpoint(ctx.s, 'batch-poll', 3);
    const lines = Array.from({ length: 24 }, (_, i) =>
      i % 6 === 5 ? { kind: 'fail', message: `no ${i}` } : { kind: 'sleep', ms: 50 },
    );
    const { file, dir } = inputFile(lines);
    const id = await ctx.batch.start({
      endpointId: ep,
      source: file,
      outDir: join(dir, 'out'),
      options: { concurrency: 6, completion: 'poll', retry: { maxAttempts: 1 } },
    });
    const summary = await ctx.batch.result(id);
    expect(summary.counts.byStatus).toEqual({ COMPLETED: 20, FAILED: 4 });
    const results = resultsOf(
      join(dir, 'out'),
      lines.map((_, i) => i),
    );
    expect(results.size).toBe(24);
    const jobs = platformJobs(ctx.s, ep);
    expect(jobs).toHaveLength(24);
    expect(jobs.filter((j) => j.webhook !== undefined)).toEqual([]);
  });
});
