/**
 * The scaler workflow on the real platform and Temporal: a burst raises the bounds within one
 * interval and the workers follow; a quiet period lowers them only after the window; no flapping
 * under oscillating load; failing `/health` starts the fallback; an override holds and expires;
 * stop restores the bounds found; a bounds change restarts no running worker.
 */
import { WorkflowFailedError, CancelledFailure } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { ScalerState, scalerWorkflowId, type Decision, type ScalerOptionsInput } from '../../contracts';
import { failureType } from '../../client/failures';
import { eventually, waitForStatus } from '../helpers/platform';
import {
  PATIENCE,
  boundsOf,
  decisionWhen,
  livePods,
  scalerStack,
  sleep,
  sleepEndpoint,
  statusWhen,
  submit,
} from './helpers';

/** Short timings for tests (the defaults are minutes). */
const quick: ScalerOptionsInput = {
  intervalMs: 500,
  stabilizationWindowMs: 4000,
  cooldownMs: 6000,
  minWriteGapMs: 1000,
  ceiling: 6,
  scaleUp: { workers: 6 },
};

describe('scaler workflow (real platform and Temporal)', () => {
  const ctx = scalerStack();

  it('a burst raises the bounds at the first tick that sees it and the platform starts the workers; a quiet period lowers them only after the window', async () => {
    const { s, scaling, gql } = ctx;
    const windowMs = 5000;
    const ep = sleepEndpoint(s, 'burst', { workersMin: 0, workersMax: 1 });
    // The cooldown outlasts the window by several ticks, so the 1 warm worker between them is decided on a loaded machine too.
    await scaling.start(ep, { ...quick, intervalMs: 1000, stabilizationWindowMs: windowMs, cooldownMs: 12_000 });
    const before = (await statusWhen(scaling, ep, (st) => st.ticks >= 2)).ticks;
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 0, workersMax: 1 });

    const ids = await submit(s, ep, 6, 2500);
    // Any message makes the scaler take a tick at once and answers after it (this one changes nothing): that tick is
    // the first sure to have sampled the queued jobs, and the raise is decided by it at the latest. A tick under way
    // (or started) meanwhile may have raised first. Wall-clock figures are bench/scaler's.
    const seen = await scaling.configure(ep, { ceiling: quick.ceiling! });
    const raise = seen.decisions.find((d) => d.write && (d.tick ?? 0) > before && d.bounds.workersMax >= 6)!;
    expect(raise).toBeDefined();
    expect(['activate', 'scale-up']).toContain(raise.kind);
    expect(raise.tick).toBeLessThanOrEqual(seen.ticks);
    expect(raise.reason).toMatch(/load \d+ queued \+ \d+ in progress/);
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMax: 6 });
    await eventually(() => livePods(s, ep).length >= 6, PATIENCE);

    // Quiet: the load ends as the jobs complete; the bounds hold for the window after the last tick that asked for
    // them. The test follows the ticks' samples (their time is the workflow's) until the first lowering is logged.
    const loads = new Map<number, number>([[raise.at, raise.recommendation]]);
    const lowering = (d: Decision) => (d.kind === 'scale-down' || d.kind === 'deactivate') && d.tick! > raise.tick!;
    const quiet = await statusWhen(scaling, ep, (st) => {
      if (st.load?.ok) loads.set(st.load.at, st.load.inQueue + st.load.inProgress);
      return st.decisions.some(lowering);
    });
    for (const id of ids) await waitForStatus(s.platform.url, ep, id, ['COMPLETED'], PATIENCE);
    const first = quiet.decisions.find(lowering)!;
    const from = Number(/target (\d+) -> \d+/.exec(first.reason)?.[1]);
    expect(from).toBeGreaterThanOrEqual(5);
    // Without the window the bounds would drop at the first tick asking for less (a second after the last asking one).
    // A sample missed here only makes lastAsked earlier.
    const lastAsked = Math.max(...[...loads].filter(([, load]) => load >= from).map(([at]) => at));
    expect(first.at - lastAsked).toBeGreaterThanOrEqual(windowMs);
    // Down to 1 warm worker while the cooldown runs. Its reason is the cooldown, or the window's last recommendation
    // of 1 when a tick saw the burst's last job alone; either way the target is 1.
    const { decision: down } = await decisionWhen(
      scaling,
      ep,
      (d) => d.write && d.kind === 'scale-down' && d.bounds.workersMin === 1,
    );
    expect(down.target).toBe(1);
    expect(down.reason).toMatch(/cooldown|target \d+ -> 1\b/);
    // ...then 1 -> 0 after it.
    const { decision: zero } = await decisionWhen(
      scaling,
      ep,
      (d) => d.write && d.kind === 'deactivate' && d.bounds.workersMin === 0,
    );
    expect(zero.tick).toBeGreaterThan(down.tick!);
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 0 });
    await scaling.stop(ep);
  }, 240_000);

  it('oscillating load (a few jobs every 1.5 s) raises the bounds and never lowers them while it lasts: writes are counted', async () => {
    const { s, scaling } = ctx;
    const ep = sleepEndpoint(s, 'oscillate', { workersMin: 0, workersMax: 1 });
    // The window spans the whole 10 s of load: any lowering while it lasts is a flap. (With 5 s, a tick that saw
    // 4 jobs once, 3 + 1 overlapping on a loaded machine, was legitimately followed by 4 -> 3 after 5 s.)
    await scaling.start(ep, { ...quick, stabilizationWindowMs: 12_000 });
    await statusWhen(scaling, ep, (st) => st.ticks >= 1);
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      await submit(s, ep, 3, 200);
      await sleep(1500);
    }
    const st = await scaling.status(ep);
    const writes = st.decisions.filter((d) => d.write);
    expect(st.writes).toBe(writes.length);
    // Raised as the load was seen (activate, maybe a step or two more), never lowered while it lasts (the decisions
    // are judged by their own time: a status read late on a loaded machine may legitimately show a lowering after it).
    const during = st.decisions.filter((d) => d.at <= until);
    expect(writes.length).toBeGreaterThanOrEqual(1);
    expect(during.filter((d) => d.write).every((d) => d.kind === 'activate' || d.kind === 'scale-up')).toBe(true);
    expect(during.some((d) => d.kind === 'scale-down' || d.kind === 'deactivate')).toBe(false);
    await scaling.stop(ep);
  }, 180_000);

  it('health failures trigger the fallback bounds; the status says so; recovered health ends it', async () => {
    const { s, scaling, gql, proxy } = ctx;
    const ep = sleepEndpoint(s, 'fallback', { workersMin: 0, workersMax: 1 });
    await scaling.start(ep, {
      ...quick,
      fallback: { failureThreshold: 2, mode: 'bounds', workersMin: 1, workersMax: 2 },
    });
    await statusWhen(scaling, ep, (st) => st.ticks >= 1);
    proxy.failing = true;
    try {
      const st = await statusWhen(scaling, ep, (x) => x.fallbackActive);
      expect(st.healthFailures).toBeGreaterThanOrEqual(2);
      expect(st.decisions.at(-1)).toMatchObject({ kind: 'fallback', bounds: { workersMin: 1, workersMax: 2 } });
      expect(st.decisions.at(-1)!.reason).toMatch(/health failed \d+ times in a row \(health: .*503|health is down/);
      expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 1, workersMax: 2 });
      // The warm worker of the fallback's workersMin starts.
      await eventually(() => livePods(s, ep).length === 1, PATIENCE);
    } finally {
      proxy.failing = false;
    }
    await statusWhen(scaling, ep, (x) => !x.fallbackActive);
    await scaling.stop(ep);
  }, 180_000);

  it('an override holds against the policy and expires by itself', async () => {
    const { s, scaling, gql } = ctx;
    const ep = sleepEndpoint(s, 'override', { workersMin: 0, workersMax: 1 });
    await scaling.start(ep, quick);
    await statusWhen(scaling, ep, (st) => st.ticks >= 1);
    const st = ScalerState.parse(await scaling.override(ep, { workersMin: 3, workersMax: 4, forMs: 15_000 }));
    // The update answers once the pinned bounds are written; the state is the contract's.
    expect(st.override).toMatchObject({ workersMin: 3, workersMax: 4 });
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 3, workersMax: 4 });
    // Two more ticks with no load: the policy would want 0..1, but the pin holds while it lasts.
    const held = await statusWhen(scaling, ep, (now) => now.ticks >= st.ticks + 2);
    expect(held.override).toMatchObject({ workersMin: 3, workersMax: 4 });
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 3, workersMax: 4 });
    // Expired, the policy's scale-down is decided and written (the status, not the platform, is
    // waited for: the platform sees the write before the workflow logs it).
    const after = await statusWhen(
      scaling,
      ep,
      (now) => !now.override && now.decisions.some((d) => d.kind === 'scale-down'),
    );
    expect(after.decisions.map((d) => d.kind)).toEqual(expect.arrayContaining(['override', 'scale-down']));
    expect((await boundsOf(gql, ep)).workersMax).toBe(1);
    await scaling.stop(ep);
  }, 180_000);

  it('stop restores the bounds found at start and ends Cancelled', async () => {
    const { s, scaling, gql } = ctx;
    const ep = sleepEndpoint(s, 'restore', { workersMin: 0, workersMax: 2 });
    await scaling.start(ep, quick);
    await scaling.override(ep, { workersMin: 2, workersMax: 5, forMs: 60_000 });
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 2, workersMax: 5 });
    const last = await scaling.stop(ep);
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 0, workersMax: 2 });
    expect(last?.phase).toBe('stopped');
    expect(last?.decisions.at(-1)).toMatchObject({ kind: 'restore', bounds: { workersMin: 0, workersMax: 2 } });
    const err = await s.env.client.workflow
      .getHandle(scalerWorkflowId(ep))
      .result()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  }, 180_000);

  it('continues as new without losing a message; a backlog report and a schedule window move the bounds before any job is queued', async () => {
    const { s, scaling, gql } = ctx;
    const ep = sleepEndpoint(s, 'messages', { workersMin: 0, workersMax: 1 });
    await scaling.start(ep, { ...quick, ceiling: 8, scaleUp: { workers: 8 }, ticksPerRun: 2 });
    // 190 jobs of 1 s due in 60 s: 4 workers (3.2 rounded up), with nothing queued yet; still 4 if the tick that takes
    // the report comes up to 12 s later on a loaded machine (190 s of work in 47.5 s).
    let st = (await scaling.reportBacklog(ep, {
      source: 'batch/x',
      remaining: 190,
      jobMs: 1000,
      deadline: Date.now() + 60_000,
    }))!;
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 4, workersMax: 5 });
    expect(st.decisions.find((d) => d.write && /backlog batch\/x: 190 jobs/.test(d.reason))).toBeDefined();
    st = await scaling.setWindow(ep, { floor: 7, ceiling: 8, source: 'test-window' });
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 7, workersMax: 8 });
    // Messages sent while runs hand over (every 2 ticks) are all taken.
    for (let i = 0; i < 8; i++) {
      await scaling.configure(ep, { headroom: i % 2 });
      await sleep(400);
    }
    st = await scaling.status(ep);
    expect(st.runs).toBeGreaterThanOrEqual(3);
    expect(st.config.headroom).toBe(1);
    expect(st.window).toMatchObject({ floor: 7, source: 'test-window' });
    expect(st.backlogs.map((b) => b.source)).toEqual(['batch/x']);
    expect(st.found).toEqual({ workersMin: 0, workersMax: 1 });
    await scaling.stop(ep);
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 0, workersMax: 1 });
  }, 180_000);

  it('bad input: a clear error for an inconsistent config or override, an unknown endpoint fails the scaler ENDPOINT_NOT_FOUND', async () => {
    const { s, scaling } = ctx;
    await expect(scaling.start('whatever', { floor: 5, ceiling: 2 })).rejects.toThrow(/floor must not exceed ceiling/);
    await expect(scaling.start('whatever', { fallback: { mode: 'bounds' } })).rejects.toThrow(
      /fallback mode .*bounds.* needs workersMin <= workersMax/,
    );
    const ep = sleepEndpoint(s, 'bad-input', { workersMin: 0, workersMax: 1 });
    await scaling.start(ep, quick);
    await expect(scaling.override(ep, { workersMin: 3, workersMax: 1, forMs: 5000 })).rejects.toThrow(
      /workersMin must not exceed workersMax/,
    );
    await expect(scaling.start(ep, quick)).rejects.toThrow(/already started|already running/i);
    await scaling.stop(ep);
    await scaling.start('no-such-endpoint', quick);
    const err = await s.env.client.workflow
      .getHandle(scalerWorkflowId('no-such-endpoint'))
      .result()
      .catch((e: unknown) => e);
    expect(failureType(err)).toBe('ENDPOINT_NOT_FOUND');
  }, 180_000);

  it('changing workersMin/workersMax restarts no running worker and starts no release: a long job completes on the same pod', async () => {
    const { s, gql } = ctx;
    const ep = sleepEndpoint(s, 'no-restart', { workersMin: 1, workersMax: 1 });
    await eventually(() => livePods(s, ep).length === 1, PATIENCE);
    const [pod] = livePods(s, ep);
    const before = await boundsOf(gql, ep);
    const [job] = await submit(s, ep, 1, 4000);
    await eventually(() => s.platform.pool.podsOf(ep).some((p) => p.id === pod && p.jobs.size === 1), PATIENCE);
    // Up, then down (never below the busy worker), as the scaler does.
    await gql.saveEndpoint({ id: ep, workersMin: 3, workersMax: 5 });
    await eventually(() => livePods(s, ep).length === 3, PATIENCE);
    await gql.saveEndpoint({ id: ep, workersMin: 1, workersMax: 2 });
    const done = await waitForStatus(s.platform.url, ep, job!, ['COMPLETED', 'FAILED', 'CANCELLED'], PATIENCE);
    expect(done).toMatchObject({ status: 'COMPLETED', output: { slept: 4000 } });
    expect(livePods(s, ep)).toContain(pod);
    const after = await boundsOf(gql, ep);
    expect(after.version).toBe(before.version);
    expect(s.platform.pool.podsOf(ep).find((p) => p.id === pod)?.version).toBe(before.version);
  }, 180_000);
});
