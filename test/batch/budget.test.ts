/**
 * The shared submission budget on the real stack, against a platform whose `/run` limit is lowered
 * to 20 per 1 s window: two batches on one endpoint share it without a 429 storm (429s counted by
 * the platform), a small high-priority batch started after a large low-priority one goes first, and
 * two daemons on one task queue together stay under the limit.
 */
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { type BatchState } from '../../contracts';
import { startDaemon } from '../../worker/daemon';
import { eventually } from '../helpers/platform';
import { batchStack, inputFile, mixedEndpoint, platformJobs, resultsOf } from './helpers';

const RUN = { perWindow: 20, concurrent: 200 };
const WINDOW_MS = 1000;
/** The same limits on both sides: the platform's (no dynamic raise) and the daemon's budget. */
const limits = { limits: { run: RUN }, windowMs: WINDOW_MS };

/** Echo jobs tagged with their batch. */
const echoes = (tag: string, n: number) => Array.from({ length: n }, (_, i) => ({ kind: 'echo', tag, i }));

describe('shared submission budget', () => {
  const ctx = batchStack({ platform: { rateLimits: { ...limits, requestsPerWorker: 0 } }, rateBudget: limits });
  const runCounts = (ep: string) => ctx.s.platform.limiter.counts(ctx.s.platform.user.id, ep, 'run');
  const tagOf = (input: unknown) => (input as { tag?: string }).tag;

  /** Polls the batches' states until all are done; returns every wait reason seen. */
  const watch = async (ids: string[]): Promise<Set<string>> => {
    const seen = new Set<string>();
    await eventually(
      async () => {
        const states: BatchState[] = await Promise.all(ids.map((id) => ctx.batch.state(id)));
        for (const s of states) for (const w of s.waiting) seen.add(w);
        return states.every((s) => s.phase === 'done');
      },
      60_000,
      100,
    );
    return seen;
  };

  it('two batches on one endpoint at once share the budget: both complete, (almost) no 429s at the platform', async () => {
    const ep = mixedEndpoint(ctx.s, 'budget-share', 6);
    const a = inputFile(echoes('a', 70));
    const b = inputFile(echoes('b', 70));
    const [ia, ib] = await Promise.all([
      ctx.batch.start({ endpointId: ep, source: a.file, outDir: join(a.dir, 'out'), options: { concurrency: 40 } }),
      ctx.batch.start({ endpointId: ep, source: b.file, outDir: join(b.dir, 'out'), options: { concurrency: 40 } }),
    ]);
    const reasons = await watch([ia, ib]);
    const [ra, rb] = await Promise.all([ctx.batch.result(ia), ctx.batch.result(ib)]);
    expect(ra.counts.byStatus).toEqual({ COMPLETED: 70 });
    expect(rb.counts.byStatus).toEqual({ COMPLETED: 70 });
    resultsOf(
      join(a.dir, 'out'),
      echoes('a', 70).map((_, i) => i),
    );
    resultsOf(
      join(b.dir, 'out'),
      echoes('b', 70).map((_, i) => i),
    );
    // Counted by the platform: every job admitted once, and at most a stray 429.
    const counts = runCounts(ep);
    expect(counts.admitted).toBe(140);
    expect(counts.limited).toBeLessThanOrEqual(2);
    // The budget was what held them (80 wanted at once against 20 per window), and the status said so.
    expect(reasons.has('rate-budget')).toBe(true);
  });

  it('a small high-priority batch started after a large low-priority one goes first and ends first', async () => {
    const ep = mixedEndpoint(ctx.s, 'budget-priority', 6);
    const large = inputFile(echoes('large', 200));
    const small = inputFile(echoes('small', 30));
    const il = await ctx.batch.start({
      endpointId: ep,
      source: large.file,
      outDir: join(large.dir, 'out'),
      options: { concurrency: 60, priority: 1 },
    });
    await eventually(async () => (await ctx.batch.state(il)).counts.submitted >= 40, 30_000);
    const is = await ctx.batch.start({
      endpointId: ep,
      source: small.file,
      outDir: join(small.dir, 'out'),
      options: { concurrency: 10, priority: 9 },
    });
    const reasons = watch([il]);
    const rs = await ctx.batch.result(is);
    const largeWhenSmallEnded = await ctx.batch.state(il);
    const rl = await ctx.batch.result(il);
    expect(rs.counts.byStatus).toEqual({ COMPLETED: 30 });
    expect(rl.counts.byStatus).toEqual({ COMPLETED: 200 });
    // Order of completion: the small one ended while the large one still had work.
    expect(largeWhenSmallEnded.phase).not.toBe('done');
    expect(largeWhenSmallEnded.counts.done).toBeLessThan(200);
    expect(rs.endedAt!).toBeLessThan(rl.endedAt!);
    // On the platform: while the small batch was submitting, the large one (almost) did not.
    const jobs = platformJobs(ctx.s, ep);
    const smallAt = jobs.filter((j) => tagOf(j.input) === 'small').map((j) => j.submittedAt);
    const [first, last] = [Math.min(...smallAt), Math.max(...smallAt)];
    const largeBetween = jobs.filter(
      (j) => tagOf(j.input) === 'large' && j.submittedAt > first && j.submittedAt < last,
    ).length;
    expect(largeBetween).toBeLessThanOrEqual(4);
    expect((await reasons).has('priority')).toBe(true);
    expect(runCounts(ep).limited).toBeLessThanOrEqual(2);
  });

  it('two daemons on one task queue split the limit between them and stay under it together', async () => {
    const second = await startDaemon({
      config: { ...ctx.s.config, SLUICE_DAEMON_PORT: 0 },
      client: ctx.s.env.client,
      logger: pino({ level: 'silent' }),
      rateBudget: limits,
    });
    try {
      // Each counts the live pollers of the task queue (the first on its timer; here at once).
      await eventually(
        async () => (await ctx.s.daemon.share!.refresh()) === 2 && (await second.share!.refresh()) === 2,
        30_000,
        200,
      );
      expect(ctx.s.daemon.budget.limitsOf('run').perWindow).toBe(RUN.perWindow / 2);
      expect(second.budget.limitsOf('run').perWindow).toBe(RUN.perWindow / 2);
      const ep = mixedEndpoint(ctx.s, 'budget-two-daemons', 6);
      const files = ['x', 'y', 'z'].map((tag) => ({ tag, ...inputFile(echoes(tag, 40)) }));
      const ids = await Promise.all(
        files.map((f) =>
          ctx.batch.start({ endpointId: ep, source: f.file, outDir: join(f.dir, 'out'), options: { concurrency: 30 } }),
        ),
      );
      const results = await Promise.all(ids.map((id) => ctx.batch.result(id)));
      for (const r of results) expect(r.counts.byStatus).toEqual({ COMPLETED: 40 });
      const counts = runCounts(ep);
      expect(counts.admitted).toBe(120);
      expect(counts.limited).toBeLessThanOrEqual(2);
    } finally {
      await second.close();
    }
  });
});
