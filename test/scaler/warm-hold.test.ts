/**
 * The scaler's cost mode on the real platform and Temporal (`warmHoldMs: 0`): a burst raises
 * workersMax and the platform starts the workers; once the jobs are done the idle workers stop
 * after the endpoint's idleTimeout while workersMax still holds the window (no write lowers it).
 */
import { describe, expect, it } from 'vitest';
import { eventually, waitForStatus } from '../helpers/platform';
import { PATIENCE, boundsOf, livePods, scalerStack, sleepEndpoint, statusWhen, submit } from './helpers';

describe('scaler cost mode: warmHoldMs 0 (real platform and Temporal)', () => {
  const ctx = scalerStack();

  it("keeps workersMin at the floor: the burst's workers stop after idleTimeout while workersMax holds the window", async () => {
    const { s, scaling, gql } = ctx;
    const ep = sleepEndpoint(s, 'warm-hold', { workersMin: 0, workersMax: 1 }, 1);
    await scaling.start(ep, {
      intervalMs: 500,
      // Windows far longer than the test: nothing it asserts depends on how fast the machine is.
      stabilizationWindowMs: 120_000,
      cooldownMs: 120_000,
      minWriteGapMs: 1000,
      ceiling: 6,
      scaleUp: { workers: 6 },
      warmHoldMs: 0,
    });
    await statusWhen(scaling, ep, (st) => st.ticks >= 1);

    // Jobs of 3 s: the burst is in the queue for several ticks, whatever the machine's load.
    const ids = await submit(s, ep, 4, 3000);
    await statusWhen(scaling, ep, (st) => st.decisions.some((d) => d.write && d.bounds.workersMax >= 5));
    for (const id of ids) await waitForStatus(s.platform.url, ep, id, ['COMPLETED'], PATIENCE);
    // Every worker of the burst stops (idleTimeout 1 s) ...
    await eventually(() => livePods(s, ep).length === 0, PATIENCE, 100);
    // ... while the bounds the scaler wrote still stand: capacity for the window (the target + headroom 1), no warm worker.
    const st = await scaling.status(ep);
    expect(st.target).toBeGreaterThanOrEqual(2);
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 0, workersMax: st.target + 1 });
    // (A tick that saw part of the burst may have raised it in two steps: raises only, workersMin never above 0.)
    const writes = st.decisions.filter((d) => d.write);
    expect(writes.length).toBeGreaterThanOrEqual(1);
    expect(writes.every((d) => (d.kind === 'activate' || d.kind === 'scale-up') && d.bounds.workersMin === 0)).toBe(
      true,
    );
    expect(writes[0]!.reason).toMatch(/warm 0: none held/);
    // (The decision log keeps a hold only when the kind changes: the stabilization is seen in the bounds above.)
    expect(st.decisions.at(-1)!.kind).toBe('hold');
    await scaling.stop(ep);
  }, 240_000);
});
