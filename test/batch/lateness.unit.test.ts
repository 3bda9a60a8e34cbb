/** When a batch's job is late (activities/batch/lateness.ts) and what the daemon's memory of its jobs in flight polls (in-flight.ts). */
import { describe, expect, it } from 'vitest';
import { COUNT_EVERY_MAX_MS, COUNT_EVERY_MS, COUNT_GRACE_MS } from '../../activities/batch/count-rule';
import { HEDGE_AFTER_MS, InFlightJobs } from '../../activities/batch/in-flight';
import {
  LATE_DEFAULT_MS,
  LATE_MAX_MS,
  LATE_MIN_MS,
  Lateness,
  MIN_SAMPLES,
  PROBES,
  SAMPLES,
} from '../../activities/batch/lateness';

/** Feeds heard times (ms) as jobs sent at `t` and heard `ms` later; returns the time reached. */
const feed = (l: Lateness, times: number[], t = 1_000_000): number => {
  for (const ms of times) l.heard(t, t + ms);
  return t + Math.max(0, ...times);
};

describe('Lateness', () => {
  it('until it heard of enough jobs, only the oldest few are late (to notice that no webhook comes): after 0.5 s before any', () => {
    const l = new Lateness();
    expect(l.lateMs()).toBe(LATE_DEFAULT_MS);
    expect(l.isLate(100, PROBES - 1, 200)).toBe(true);
    expect(l.isLate(100, PROBES, 200)).toBe(false);
    feed(l, Array(MIN_SAMPLES - 1).fill(300));
    expect(l.isLate(100, PROBES, 200)).toBe(false);
    feed(l, [300]);
    expect(l.isLate(100, PROBES + 50, 200)).toBe(true);
    expect(l.isLate(300, 0, 200)).toBe(false); // not yet
  });

  it('half again the longest of the last 64 heard times, within bounds', () => {
    const l = new Lateness();
    // A healthy batch's skewed times: most jobs heard in 100-1000 ms (waiting their turn), 3 of 64 up to 1.9 s.
    const times = [...Array.from({ length: 61 }, (_, k) => 100 + 15 * k), 1500, 1700, 1900];
    feed(l, times);
    expect(l.samples).toBe(SAMPLES);
    expect(l.lateMs()).toBe(2850);
    // Three times their mean (the former rule, 1.8 s) called the slowest of them late.
    const mean = times.reduce((a, b) => a + b) / times.length;
    expect(times.filter((ms) => ms > 3 * mean)).toEqual([1900]);
    expect(times.filter((ms) => ms > l.lateMs())).toEqual([]);
    const fast = new Lateness();
    feed(fast, [10, 20, 30]);
    expect(fast.lateMs()).toBe(LATE_MIN_MS);
    const slow = new Lateness();
    feed(slow, [60_000]);
    expect(slow.lateMs()).toBe(LATE_MAX_MS);
  });

  it('learns only from the latest 64 jobs: a batch that slowed down, then sped up again', () => {
    const l = new Lateness();
    feed(l, Array(SAMPLES).fill(200));
    expect(l.lateMs()).toBe(LATE_MIN_MS);
    feed(l, Array(8).fill(4000));
    expect(l.lateMs()).toBe(6000);
    feed(l, Array(SAMPLES).fill(600));
    expect(l.lateMs()).toBe(900);
  });

  it('a failure of the service forgets what was learnt, and the jobs sent before it are no samples', () => {
    const l = new Lateness();
    const t = feed(l, Array(SAMPLES).fill(1000));
    expect(l.lateMs()).toBe(1500);
    l.failed(t + 1);
    expect(l.samples).toBe(0);
    expect(l.lateMs()).toBe(LATE_DEFAULT_MS);
    expect(l.isLate(0, PROBES, t + 2)).toBe(false); // only the oldest few again
    l.heard(t, t + 12_000); // in flight across the outage: its 12 s measure the outage
    expect(l.samples).toBe(0);
    l.heard(t + 2, t + 402); // sent after it
    expect(l.lateMs()).toBe(600);
  });
});

describe('InFlightJobs', () => {
  const wf = 'batch/b';
  const ids = (jobs: { id: string }[]) => jobs.map((j) => j.id);

  it('a job is due once late, its oldest few before the batch heard of one; a job a poll found finished is not due again', () => {
    const f = new InFlightJobs();
    for (let k = 0; k < 8; k++) f.add(wf, `j${k}`, 1000 + k);
    expect(ids(f.late(wf, 1400))).toEqual([]);
    expect(ids(f.late(wf, 1600))).toEqual(['j0', 'j1', 'j2', 'j3', 'j4']);
    f.found(wf, { id: 'j0', status: 'COMPLETED' });
    expect(ids(f.late(wf, 1600))).toEqual(['j1', 'j2', 'j3', 'j4', 'j5']);
    expect(f.takeFound(wf).map((x) => x.record.id)).toEqual(['j0']);
    expect(f.takeFound(wf)).toEqual([]);
    f.done(wf, 'j1', true, 1300); // heard after 300 ms: still the oldest few only (late after 450 ms)
    expect(ids(f.late(wf, 1449))).toEqual([]);
    expect(ids(f.late(wf, 1500))).toEqual(['j2', 'j3', 'j4', 'j5', 'j6']);
    for (let k = 0; k < MIN_SAMPLES; k++) {
      f.add(wf, `h${k}`, 2000);
      f.done(wf, `h${k}`, true, 2200);
    }
    // The rule for every job now: late after 450 ms (1.5 x 300 ms).
    expect(ids(f.late(wf, 1500))).toEqual(['j2', 'j3', 'j4', 'j5', 'j6', 'j7']);
  });

  it('a job that ended is not tracked again by a late report of its answer, unless retried under its id', () => {
    const f = new InFlightJobs();
    f.add(wf, 'j1', 1000);
    f.done(wf, 'j1', true, 1200);
    f.done(wf, 'j2', true, 1300); // its webhook came before its /run answer
    f.add(wf, 'j1', 1400);
    f.add(wf, 'j2', 1400, 0);
    expect(f.of(wf)).toEqual([]);
    f.add(wf, 'j1', 1500, undefined, true); // `/retry`
    expect(ids(f.of(wf))).toEqual(['j1']);
  });

  it("a retried job stays in flight when a webhook of the run before comes (late or twice): its own lost webhook is a late job's", () => {
    const f = new InFlightJobs();
    f.add(wf, 'j1', 1000);
    f.done(wf, 'j1', true, 1200, 0); // run 0 FAILED (the platform restarted), heard
    f.add(wf, 'j1', 2000, undefined, true); // `/retry`: run 1
    expect(f.done(wf, 'j1', true, 2100, 0)).toBeUndefined(); // run 0's webhook again: no end of run 1
    expect(f.done(wf, 'j1', true, 2100)).toBeUndefined(); // a record without `retries` is run 0
    expect(ids(f.of(wf))).toEqual(['j1']);
    expect(ids(f.late(wf, 2600))).toEqual(['j1']); // late (no samples: after 0.5 s), so polled
    expect(f.done(wf, 'j1', true, 2700, 1)?.id).toBe('j1'); // run 1's own webhook ends it
    expect(f.of(wf)).toEqual([]);
    // A second retry is run 2: a late webhook of run 1 does not end it.
    f.add(wf, 'j1', 3000, undefined, true);
    expect(f.done(wf, 'j1', true, 3100, 1)).toBeUndefined();
    expect(ids(f.of(wf))).toEqual(['j1']);
  });

  it('a poll of a run that was retried or ended since answers for nothing; finds of a failed step are given back', () => {
    const f = new InFlightJobs();
    f.add(wf, 'j1', 1000);
    const before = f.of(wf)[0]!;
    f.done(wf, 'j1', false, 1100);
    f.add(wf, 'j1', 1200, undefined, true);
    expect(f.tracks(wf, before)).toBe(false);
    expect(f.tracks(wf, f.of(wf)[0]!)).toBe(true);
    f.found(wf, { id: 'j1', status: 'COMPLETED', retries: 1 });
    const taken = f.takeFound(wf);
    expect(f.takeFound(wf)).toEqual([]);
    f.giveBack(wf, taken);
    expect(f.takeFound(wf).map((x) => x.record.id)).toEqual(['j1']);
  });

  it('a job reported by a later step than its own that ended already is polled at once (its record went to a step before the workflow knew it)', () => {
    const f = new InFlightJobs();
    for (let k = 0; k < 8; k++) f.add(wf, `j${k}`, 1000);
    f.done(wf, 'late', true, 1100); // its webhook, before its /run answer was reported
    f.add(wf, 'late', 1200); // the step's own late answer: not tracked again
    expect(ids(f.of(wf))).not.toContain('late');
    f.recheck(wf, 'late', false, 5000); // reported by a later step (it was *submitting*)
    expect(ids(f.late(wf, 5000))).toContain('late');
    f.recheck(wf, 'new', false, 5000); // not ended: tracked as any job sent
    expect(ids(f.late(wf, 5000))).not.toContain('new');
    expect(ids(f.of(wf))).toContain('new');
  });

  it('a poll may set a job its own time (a replayed answer: at once)', () => {
    const f = new InFlightJobs();
    for (let k = 0; k < 8; k++) f.add(wf, `j${k}`, 1000);
    f.add(wf, 'j7', 1000, 0);
    expect(ids(f.late(wf, 1001))).toEqual(['j7']);
  });

  it('the count rule: while jobs are in flight, the jobs beyond what the endpoint still holds are polled soon after the ask, oldest first', () => {
    const f = new InFlightJobs();
    // 32 jobs heard slowly (the late rule learns 1.5 x 3 s: delayed webhooks, a platform restart's queue), then 10 in flight.
    for (let k = 0; k < MIN_SAMPLES; k++) {
      f.add(wf, `h${k}`, 0);
      f.done(wf, `h${k}`, true, 3000);
    }
    for (let k = 0; k < 10; k++) f.add(wf, `j${k}`, 10_000 + k);
    // Webhooks still arrive: the count is asked anyway, one ask at a time.
    f.done(wf, 'j9', true, 10_500);
    const askedAt = 10_500;
    expect(f.wantsCount(wf, askedAt)).toBe(true);
    expect(f.wantsCount(wf, askedAt + 1)).toBe(false);
    // Not late by the learnt rule (4.5 s) ...
    expect(ids(f.late(wf, askedAt + 10))).toEqual([]);
    // ... but the endpoint holds only 6 queued or running: 3 of the 9 finished, their webhooks lost or late.
    expect(f.counted(wf, 6, askedAt, askedAt + 10)).toBe(3);
    // Polled after the grace: a webhook in transit at the ask (j1's) is taken meanwhile, and its job not polled.
    expect(ids(f.late(wf, askedAt + COUNT_GRACE_MS - 1))).toEqual([]);
    f.done(wf, 'j1', true, askedAt + 100);
    expect(ids(f.late(wf, askedAt + COUNT_GRACE_MS))).toEqual(['j0', 'j2']);
    // The next ask comes COUNT_EVERY_MS after this one (it found some missing).
    expect(f.wantsCount(wf, askedAt + COUNT_EVERY_MS - 1)).toBe(false);
    expect(f.wantsCount(wf, askedAt + COUNT_EVERY_MS)).toBe(true);
  });

  it('the count rule: jobs sent after the ask, or polled since, are not counted missing; asks finding none missing back off', () => {
    const f = new InFlightJobs();
    for (let k = 0; k < 4; k++) f.add(wf, `j${k}`, 1000 + k);
    let now = 1000 + COUNT_EVERY_MS;
    expect(f.wantsCount(wf, now - 1)).toBe(false); // the first ask: COUNT_EVERY_MS after jobs are in flight
    expect(f.wantsCount(wf, now)).toBe(true);
    f.add(wf, 'late-sent', now + 5);
    f.of(wf)[0]!.polledAt = now + 7; // j0 polled after the ask: its answer is fresher than the count
    // The endpoint holds 2: two of the four sent before the ask finished; j0 was polled since, so j1 and j2.
    expect(f.counted(wf, 2, now, now + 10)).toBe(2);
    expect(ids(f.of(wf).filter((t) => t.pollAt === now + COUNT_GRACE_MS))).toEqual(['j1', 'j2']);
    // The next asks find none missing: each waits twice the last, up to the cap.
    const waits: number[] = [];
    let at = now;
    for (let n = 0; n < 6; n++) {
      while (!f.wantsCount(wf, at)) at += 100;
      waits.push(at - now);
      now = at;
      f.counted(wf, 100, now, now);
    }
    expect(waits).toEqual([
      COUNT_EVERY_MS,
      2 * COUNT_EVERY_MS,
      4 * COUNT_EVERY_MS,
      8 * COUNT_EVERY_MS,
      COUNT_EVERY_MAX_MS,
      COUNT_EVERY_MAX_MS,
    ]);
    // A webhook heard: jobs are finishing, the next ask COUNT_EVERY_MS after the last.
    f.done(wf, 'j3', true, now + 50);
    expect(f.wantsCount(wf, now + COUNT_EVERY_MS - 1)).toBe(false);
    expect(f.wantsCount(wf, now + COUNT_EVERY_MS)).toBe(true);
  });

  it('the count rule: a missing job whose poll is slow is polled again beside it', () => {
    const f = new InFlightJobs();
    for (let k = 0; k < 3; k++) f.add(wf, `j${k}`, 1000 + k);
    const [j0, j1] = f.of(wf);
    // Polls of j0 and j1 under way, j0's for HEDGE_AFTER_MS already (its answer delayed), j1's just started.
    Object.assign(j0!, { busy: true, busySince: 2000 });
    Object.assign(j1!, { busy: true, busySince: 2000 + HEDGE_AFTER_MS });
    const askedAt = 2000 + HEDGE_AFTER_MS;
    // The endpoint holds none: all three finished.
    expect(f.counted(wf, 0, askedAt, askedAt + 5)).toBe(2);
    expect(ids(f.late(wf, askedAt + COUNT_GRACE_MS))).toEqual(['j0', 'j2']);
    // Once: the next ask counts j2 again (not polled yet), not j0 (its second poll not started) nor j1 (its poll is young).
    expect(f.counted(wf, 0, askedAt + 500, askedAt + 505)).toBe(1);
  });

  it('the count rule asks nothing while no job is in flight', () => {
    const f = new InFlightJobs();
    expect(f.wantsCount(wf, 10_000)).toBe(false);
    f.add(wf, 'a', 10_000);
    f.done(wf, 'a', true, 10_100);
    expect(f.wantsCount(wf, 20_000)).toBe(false);
    f.add(wf, 'b', 20_000);
    expect(f.wantsCount(wf, 20_000 + COUNT_EVERY_MS - 1)).toBe(false);
    expect(f.wantsCount(wf, 20_000 + COUNT_EVERY_MS)).toBe(true);
  });
});
