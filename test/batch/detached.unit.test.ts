/** Submissions that outlive their step (activities/batch/detached.ts): how a later step resolves each, by what it can know. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { batchKeys } from '../../contracts/names';
import { DetachedSubmissions, GRACE_MS, REPORTED_KEPT_MS } from '../../activities/batch/detached';
import { claimedJobs, reportSubmitting } from '../../activities/batch/submitting';
import { emptyStepResult, type Submitting } from '../../activities/batch/types';
import { openResultsStore } from '../../results/store/open';

const run = { workflowId: 'batch/b', runId: 'r1' };
const dirs: string[] = [];
const store = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-detached-'));
  dirs.push(dir);
  return openResultsStore(dir);
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const open = (i: number, dm: string, dl = Date.now() + 10_000): Submitting => ({ i, o: i * 10, l: 10, q: 2, dm, dl });

describe('DetachedSubmissions (this daemon process)', () => {
  it('holds a call until it settles, wakes a waiting step, forgets a run', async () => {
    const d = new DetachedSubmissions();
    d.hold(run, 1);
    expect(d.get(run, 1)).toBeUndefined(); // still running
    const woken = d.next(run);
    d.settle(run, 1, { id: 'j1' });
    await woken;
    expect(d.get(run, 1)).toEqual({ id: 'j1' });
    d.settle(run, 1, 'lost'); // the first answer stays
    expect(d.get(run, 1)).toEqual({ id: 'j1' });
    d.drop(run);
    expect(d.get(run, 1)).toBe('lost'); // never held (here): lost
  });

  it('forgets a reported answer a while after the report (a retried step finds it until then); a running call stays', () => {
    const d = new DetachedSubmissions();
    for (const i of [1, 2, 3]) d.hold(run, i);
    d.settle(run, 1, { id: 'j1' });
    d.settle(run, 2, { id: 'j2' });
    const t0 = 1_000_000;
    d.reported(run, 1, t0);
    d.reported(run, 3, t0); // still running when reported (not an answer): never forgotten by this
    d.reported(run, 2, t0 + REPORTED_KEPT_MS - 1);
    expect(d.get(run, 1)).toEqual({ id: 'j1' }); // kept: a retried attempt of the step reports it again
    d.reported(run, 2, t0 + REPORTED_KEPT_MS);
    expect(d.get(run, 1)).toBe('lost'); // forgotten: sent again under its idempotency key if ever asked
    expect(d.get(run, 2)).toEqual({ id: 'j2' });
    expect(d.get(run, 3)).toBeUndefined();
  });
});

describe('reportSubmitting', () => {
  it("this daemon's calls: answered, refused, never sent; one still running stays open", async () => {
    const d = new DetachedSubmissions();
    for (const i of [1, 2, 3, 4]) d.hold(run, i);
    d.settle(run, 1, { id: 'j1', dup: true });
    d.settle(run, 2, { error: 'too large' });
    d.settle(run, 3, 'deferred');
    const res = emptyStepResult();
    const reported: string[] = [];
    await reportSubmitting(
      store(),
      run,
      [1, 2, 3, 4].map((i) => open(i, d.id)),
      res,
      d,
      (id) => reported.push(id),
    );
    expect(res.submitted).toEqual([{ i: 1, o: 10, l: 10, id: 'j1', dup: true }]);
    // Its job may have ended before the workflow knew it (its record dropped): the daemon's memory hears of it.
    expect(reported).toEqual(['j1']);
    expect(res.rejected).toEqual([{ i: 2, error: 'too large' }]);
    expect(res.deferred).toEqual([{ i: 3, o: 30, l: 10 }]);
  });

  it("another daemon's call: its step's journal has the answer; without one it stays open until its deadline has passed", async () => {
    const s = store();
    await s.append(batchKeys.submitJournal(run, 2), [{ i: 1, a: 1, id: 'j1', how: 'submit' }]);
    const answered: string[] = [];
    const res = emptyStepResult();
    const now = Date.now();
    const sg = [open(1, 'other'), open(2, 'other', now + 5000), open(3, 'other', now - GRACE_MS - 1)];
    await reportSubmitting(s, run, sg, res, new DetachedSubmissions(), (id) => answered.push(id));
    expect(res.submitted).toEqual([{ i: 1, o: 10, l: 10, id: 'j1' }]);
    expect(answered).toEqual(['j1']); // polled soon: its webhook may have been taken already
    // Its daemon died (or abandoned it) and nothing was journaled: sent again later, same idempotency key.
    expect(res.deferred).toEqual([{ i: 3, o: 30, l: 10 }]);
  });

  it('a job whose webhook came to its URL before the answer is answered by it (attempt 1 only); its late answer changes nothing', async () => {
    const d = new DetachedSubmissions();
    for (const i of [1, 2]) d.hold(run, i);
    const claims = claimedJobs([
      { id: 'j1', status: 'COMPLETED', claim: { i: 1, a: 1 } },
      { id: 'j9', status: 'COMPLETED', claim: { i: 2, a: 2 } }, // a retry's: not a first submission
      { id: 'j7', status: 'COMPLETED' }, // no claim (an older daemon's record)
    ]);
    expect([...claims]).toEqual([[1, 'j1']]);
    const answered: string[] = [];
    const res = emptyStepResult();
    await reportSubmitting(store(), run, [open(1, d.id), open(2, d.id)], res, d, (id) => answered.push(id), claims);
    expect(res.submitted).toEqual([{ i: 1, o: 10, l: 10, id: 'j1' }]);
    expect(answered).toEqual([]); // finished already: not polled
    d.settle(run, 1, 'lost'); // the call's own end, later
    expect(d.get(run, 1)).toEqual({ id: 'j1' });
    expect(d.get(run, 2)).toBeUndefined(); // still open
  });
});
