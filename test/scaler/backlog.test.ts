/**
 * The scaler pulls the backlog of the batches running on its endpoint (their `batchState`) on the
 * real platform and Temporal: a batch with a deadline raises the bounds beyond what the queue asks
 * for, and they come back down once the batch has drained. The batch workflow is not changed.
 */
import { describe, expect, it } from 'vitest';
import { BatchClient } from '../../client/batch';
import { ScalerState, type Decision } from '../../contracts';
import { call } from '../helpers/platform';
import { inputFile } from '../batch/helpers';
import { PATIENCE, boundsOf, decisionWhen, scalerStack, sleepEndpoint, statusWhen } from './helpers';

describe('scaler: backlog pulled from running batches (real platform and Temporal)', () => {
  const ctx = scalerStack();

  it('a batch with a deadline makes the scaler raise the bounds before the queue builds up, and lower them after it drains', async () => {
    const { s, scaling, gql } = ctx;
    const batch = new BatchClient({ client: s.env.client, resultsDir: s.resultsDir });
    const ep = sleepEndpoint(s, 'backlog-pull', { workersMin: 0, workersMax: 1 });
    // The queue alone asks for a worker per 6 jobs: the batch's window of 12 never needs more than 2.
    await scaling.start(ep, {
      intervalMs: 500,
      backlogScanMs: 1000,
      targetPerWorker: 6,
      ceiling: 8,
      scaleUp: { workers: 8 },
      stabilizationWindowMs: 3000,
      cooldownMs: 4000,
      minWriteGapMs: 1000,
    });
    await statusWhen(scaling, ep, (st) => st.ticks >= 1);

    // 60 jobs of 500 ms due in 8 s: about 4 workers once the job time is known, more as the time left shrinks;
    // before the first job ends, a worker per 6 of its 60 jobs (the ceiling, 8).
    const { file, dir } = inputFile(Array.from({ length: 60 }, () => ({ input: { ms: 500 } })));
    const deadline = Date.now() + 8000;
    const id = await batch.start({ endpointId: ep, source: file, outDir: dir, options: { concurrency: 12, deadline } });

    // The test samples the queue itself until the scaler has logged a write beyond what the queue asks for
    // (the log, not the platform's bounds, is waited for: the platform sees the write before the workflow logs it).
    const raised = (d: Decision) => d.write && d.bounds.workersMax >= 4;
    let maxQueued = 0;
    const st = ScalerState.parse(
      await statusWhen(
        scaling,
        ep,
        (x) => x.decisions.some(raised),
        PATIENCE,
        async () => {
          const h = await call(s.platform.url, 'GET', `/v2/${ep}/health`, { key: s.platform.apiKey });
          maxQueued = Math.max(maxQueued, h.body.jobs.inQueue as number);
        },
      ),
    );
    const raise = st.decisions.find(raised)!;
    expect(['activate', 'scale-up']).toContain(raise.kind);
    expect((await boundsOf(gql, ep)).workersMax).toBeGreaterThanOrEqual(4);
    // The reason names the batch and its remaining jobs (before its first job ends, its job time is unknown)...
    expect(raise.reason).toMatch(
      new RegExp(`backlog ${id}: \\d+ jobs(, job time unknown yet| x [\\d.]+ s in [\\d.]+ s): \\d+`),
    );
    // ...and the queue's own recommendation at that tick was below the target the backlog set.
    const fromLoad = Number(/per worker = (\d+)/.exec(raise.reason)?.[1]);
    expect(fromLoad).toBeLessThanOrEqual(2);
    expect(raise.target).toBeGreaterThan(fromLoad);
    // The queue never held more than the batch's window (the batch keeps at most 12 in flight).
    expect(maxQueued).toBeLessThanOrEqual(12);
    expect(st.backlogs).toEqual([expect.objectContaining({ source: id, pulled: true, deadline })]);
    // Once jobs finish, the pulled backlog carries their average time and the deadline math takes over
    // (the job's own execution time, whatever the queue's wait: an order of magnitude, not a timing).
    const timed = (await statusWhen(scaling, ep, (x) => x.backlogs.some((b) => b.jobMs !== undefined))).backlogs.find(
      (b) => b.jobMs !== undefined,
    )!;
    expect(timed.jobMs).toBeGreaterThanOrEqual(450);
    expect(timed.jobMs).toBeLessThan(5000);

    // Drained: the batch ends, its pulled report goes at the next scan, the bounds come down after the window.
    const done = await batch.result(id);
    expect(done.counts.done).toBe(60);
    await statusWhen(scaling, ep, (x) => x.backlogs.length === 0);
    const { decision: lowered } = await decisionWhen(
      scaling,
      ep,
      (d) => d.write && (d.kind === 'scale-down' || d.kind === 'deactivate') && d.bounds.workersMax <= 2,
    );
    expect(lowered.tick).toBeGreaterThan(raise.tick!);
    expect((await boundsOf(gql, ep)).workersMax).toBeLessThanOrEqual(2);
    await scaling.stop(ep);
  }, 240_000);
});
