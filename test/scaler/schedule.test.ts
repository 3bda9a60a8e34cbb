/**
 * Scale schedules on the real Temporal dev server and platform (Temporal's time-skipping test
 * server has no Schedules): a schedule that fires sets a running scaler's window, or the endpoint's
 * bounds when no scaler runs; pause stops the firings, resume starts them again; delete removes it;
 * calendar specs in a time zone; bad input is refused with nothing created.
 */
import { describe, expect, it } from 'vitest';
import { ScalerScheduleError, scheduleInputOf, scheduleSpecOf } from '../../client/scaler-schedule-spec';
import { scaleScheduleId, type ScaleWindowResult } from '../../contracts';
import { eventually } from '../helpers/platform';
import { PATIENCE, boundsOf, scalerStack, sleep, sleepEndpoint, statusWhen } from './helpers';

const codeOf = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'resolved',
    (err: unknown) => (err instanceof ScalerScheduleError ? err.code : String(err)),
  );

describe('scale schedules (real Temporal Schedules)', () => {
  const ctx = scalerStack();

  /** The result of the last workflow a schedule started. */
  const lastFiring = async (endpointId: string, name: string): Promise<ScaleWindowResult> => {
    const v = await ctx.scaling.schedules.get(endpointId, name);
    const wf = v.recent.at(-1);
    if (!wf) throw new Error('not fired yet');
    return ctx.s.env.client.workflow.getHandle(wf.workflowId).result() as Promise<ScaleWindowResult>;
  };

  it("a schedule that fires sets a running scaler's floor/ceiling window, and the scaler moves the bounds", async () => {
    const { s, scaling, gql } = ctx;
    const ep = sleepEndpoint(s, 'sched-scaler', { workersMin: 0, workersMax: 1 });
    await scaling.start(ep, { intervalMs: 500, minWriteGapMs: 1000, ceiling: 6 });
    await statusWhen(scaling, ep, (st) => st.ticks >= 1);
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 0, workersMax: 1 });

    const addedAt = Date.now();
    const v = await scaling.schedules.add({
      endpointId: ep,
      name: 'up',
      cron: '@every 2s',
      min: 2,
      max: 4,
      forMs: 60_000,
    });
    expect(v).toMatchObject({
      scheduleId: scaleScheduleId(ep, 'up'),
      endpointId: ep,
      name: 'up',
      min: 2,
      max: 4,
      cron: '@every 2s',
      timezone: 'UTC',
      paused: false,
    });
    const st = await statusWhen(scaling, ep, (x) => x.window?.source === v.scheduleId);
    const seenAt = Date.now();
    expect(st.window).toMatchObject({ floor: 2, ceiling: 4 });
    // The window ends forMs after a firing (which came after the schedule was added, and before it was seen).
    expect(st.window!.until).toBeGreaterThanOrEqual(addedAt + 60_000);
    expect(st.window!.until).toBeLessThanOrEqual(seenAt + 60_000);
    // The floor of 2 is the scaler's target now: workersMin 2, workersMax with the headroom of 1, under the ceiling of 4.
    await eventually(async () => (await boundsOf(gql, ep)).workersMin === 2, PATIENCE, 100);
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 2, workersMax: 3 });
    expect(await lastFiring(ep, 'up')).toMatchObject({
      applied: 'window',
      endpointId: ep,
      workersMin: 2,
      workersMax: 3,
    });

    await scaling.schedules.delete(ep, 'up');
    await scaling.stop(ep);
    // Stopped: the scaler restored the bounds it found.
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 0, workersMax: 1 });
  }, 180_000);

  it('without a scaler a firing sets workersMin/workersMax directly; pause stops the firings, resume starts them; delete removes it', async () => {
    const { s, scaling, gql } = ctx;
    const ep = sleepEndpoint(s, 'sched-direct', { workersMin: 0, workersMax: 1 });
    const v = await scaling.schedules.add({ endpointId: ep, cron: '@every 2s', min: 1, max: 3 });
    expect(v.name).toMatch(/^cron-[0-9a-f]{8}$/);
    await eventually(async () => (await boundsOf(gql, ep)).workersMax === 3, PATIENCE, 100);
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 1, workersMax: 3 });
    expect(await lastFiring(ep, v.name)).toMatchObject({
      applied: 'bounds',
      endpointId: ep,
      workersMin: 1,
      workersMax: 3,
    });
    await eventually(
      async () => (await scaling.schedules.list({ endpointId: ep })).map((x) => x.name).includes(v.name),
      PATIENCE,
      200,
    );

    // Paused: someone sets the bounds back, and no firing undoes it.
    const paused = await scaling.schedules.pause(ep, v.name, 'maintenance');
    expect(paused).toMatchObject({ paused: true, note: 'maintenance' });
    // pause returned once a firing under way had ended: none lands from here on.
    await gql.saveEndpoint({ id: ep, workersMin: 0, workersMax: 1 });
    const taken = (await scaling.schedules.get(ep, v.name)).actionsTaken;
    await sleep(4500);
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 0, workersMax: 1 });
    expect((await scaling.schedules.get(ep, v.name)).actionsTaken).toBe(taken);

    expect((await scaling.schedules.resume(ep, v.name)).paused).toBe(false);
    await eventually(async () => (await boundsOf(gql, ep)).workersMax === 3, PATIENCE, 100);

    await scaling.schedules.delete(ep, v.name);
    expect(await codeOf(scaling.schedules.get(ep, v.name))).toBe('SCHEDULE_NOT_FOUND');
    await eventually(
      async () => !(await scaling.schedules.list({ endpointId: ep })).some((x) => x.name === v.name),
      PATIENCE,
      200,
    );
  }, 180_000);

  it("a time of day on weekdays in a time zone: Temporal's calendar fires at 08:00 Berlin time, Monday to Friday, across the change to summer time", async () => {
    const { s, scaling } = ctx;
    const ep = sleepEndpoint(s, 'sched-berlin', { workersMin: 0, workersMax: 1 });
    const until = Date.now() + 30 * 86_400_000;
    const v = await scaling.schedules.add({
      endpointId: ep,
      at: '8:00',
      days: 'mon-fri',
      timezone: 'Europe/Berlin',
      min: 2,
      max: 10,
      until,
    });
    expect(v).toMatchObject({
      name: '0800-mon-fri',
      at: '08:00',
      days: 'mon-fri',
      timezone: 'Europe/Berlin',
      until: new Date(until).toISOString(),
    });
    expect(v.next).toHaveLength(3);
    const local = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Berlin',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hour12: false,
    });
    for (const t of v.next) {
      const parts = Object.fromEntries(local.formatToParts(new Date(t)).map((p) => [p.type, p.value]));
      expect(`${parts.hour}:${parts.minute}`).toBe('08:00');
      expect(['Mon', 'Tue', 'Wed', 'Thu', 'Fri']).toContain(parts.weekday);
    }
    // Daylight saving is Temporal's: the same spec, started just before Berlin's clocks go forward
    // (Sunday 2027-03-28), fires at 07:00 UTC on the Friday before and at 06:00 UTC on the Monday after.
    const dst = `dst-${ep}`;
    await s.env.client.schedule.create({
      scheduleId: dst,
      spec: {
        ...scheduleSpecOf(
          scheduleInputOf({ endpointId: ep, at: '08:00', days: 'mon-fri', timezone: 'Europe/Berlin', min: 0, max: 1 }),
        ),
        startAt: new Date('2027-03-25T12:00:00Z'),
      },
      action: { type: 'startWorkflow', workflowType: 'none', taskQueue: 'none', args: [] },
      state: { paused: true },
    });
    const around = (await s.env.client.schedule.getHandle(dst).describe()).info.nextActionTimes
      .slice(0, 3)
      .map((t) => t.toISOString());
    expect(around).toEqual(['2027-03-26T07:00:00.000Z', '2027-03-29T06:00:00.000Z', '2027-03-30T06:00:00.000Z']);
    await s.env.client.schedule.getHandle(dst).delete();
    // A week that wraps over the weekend, as two ranges.
    const w = await scaling.schedules.add({
      endpointId: ep,
      at: '20:30',
      days: 'fri-mon',
      timezone: 'America/New_York',
      min: 0,
      max: 1,
    });
    const ny = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', weekday: 'short' });
    for (const t of w.next) expect(['Fri', 'Sat', 'Sun', 'Mon']).toContain(ny.format(new Date(t)));
    await scaling.schedules.delete(ep, v.name);
    await scaling.schedules.delete(ep, w.name);
  }, 180_000);

  it('bad input is refused with a clear error and nothing is created', async () => {
    const { s, scaling } = ctx;
    const ep = sleepEndpoint(s, 'sched-bad', { workersMin: 0, workersMax: 1 });
    const bad = async (init: Parameters<typeof scaling.schedules.add>[0], message: RegExp) => {
      const err = await scaling.schedules.add(init).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ScalerScheduleError);
      expect((err as ScalerScheduleError).code).toBe('INVALID_SCHEDULE');
      expect((err as Error).message).toMatch(message);
    };
    await bad({ endpointId: ep, at: '08:00', min: 5, max: 2 }, /min must not exceed max/);
    await bad({ endpointId: ep, at: '25:00', min: 0, max: 2 }, /time of day/);
    await bad({ endpointId: ep, cron: 'every morning', min: 0, max: 2 }, /invalid schedule: .*fields/i);
    await bad({ endpointId: ep, cron: '61 * * * *', min: 0, max: 2 }, /minute/i);
    await bad(
      { endpointId: ep, at: '08:00', timezone: 'Mars/Olympus', min: 0, max: 2 },
      /unknown time zone Mars\/Olympus/,
    );
    await bad({ endpointId: ep, at: '08:00', cron: '@daily', min: 0, max: 2 }, /either at .* or cron/);
    await bad({ endpointId: ep, cron: '@daily', days: 'mon-fri', min: 0, max: 2 }, /days go with at/);
    await bad({ endpointId: ep, at: '08:00', days: 'monday-friday', min: 0, max: 2 }, /days must be weekdays/);
    await bad({ endpointId: ep, at: '08:00', until: Date.now() - 1000, min: 0, max: 2 }, /until is in the past/);
    await bad({ endpointId: ep, at: '08:00', name: 'a/b', min: 0, max: 2 }, /schedule name/);

    await scaling.schedules.add({ endpointId: ep, name: 'once', at: '08:00', min: 0, max: 2 });
    expect(await codeOf(scaling.schedules.add({ endpointId: ep, name: 'once', at: '09:00', min: 0, max: 2 }))).toBe(
      'SCHEDULE_EXISTS',
    );
    expect(await codeOf(scaling.schedules.pause(ep, 'nope'))).toBe('SCHEDULE_NOT_FOUND');
    expect(await codeOf(scaling.schedules.delete(ep, 'nope'))).toBe('SCHEDULE_NOT_FOUND');
    // Listing reads Temporal's visibility, which lags: wait for the one schedule created, then nothing else is listed.
    const listed = await eventually(
      async () => {
        const names = (await scaling.schedules.list({ endpointId: ep })).map((x) => x.name);
        return names.includes('once') ? names : undefined;
      },
      PATIENCE,
      200,
    );
    expect(listed).toEqual(['once']);
    await scaling.schedules.delete(ep, 'once');
  }, 180_000);
});
