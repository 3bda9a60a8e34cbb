/** Which job in flight a completion is the outcome of (workflows/batch/completion-match.ts), as a table; and the ledger that applies it. Pure. */
import { describe, expect, it } from 'vitest';
import { BatchOptions } from '../../contracts';
import { emptyStepResult, type Completion } from '../../activities/batch/types';
import { ownerOf } from '../../workflows/batch/completion-match';
import { newLedger, type InFlight } from '../../workflows/batch/ledger';
import { applyStep } from '../../workflows/batch/ledger-step';

const NOW = 10_000_000;
const entry = (r: number): InFlight => ({
  i: 0,
  o: 0,
  l: 10,
  id: 'j0',
  a: 1 + r,
  r,
  ids: ['j0'],
  t0: 1000,
  p: NOW,
  pe: 30_000,
});
const done = (c: Partial<Completion>): Completion => ({ id: 'j0', r: 0, s: 'FAILED', n: 0, ...c });

describe('ownerOf: a completion of an earlier run is not the outcome of a retry', () => {
  // [case, the entry's /retry count, the completion, exact (since the patch), matched]
  const rows: [string, number, Partial<Completion>, boolean, boolean][] = [
    ['the first run, its record without `retries`', 0, { r: 0 }, true, true],
    ['the retry, its record counting it', 1, { r: 1 }, true, true],
    ['a late or duplicated webhook of the run the retry replaced', 1, { r: 0 }, true, false],
    ['the same, two retries on', 2, { r: 1 }, true, false],
    ['a later run than the ledger counts (a /retry whose answer was lost)', 1, { r: 2 }, true, true],
    [
      'a poll the workflow ordered after the retry, its record without `retries` (a service that counts no runs)',
      1,
      { r: 0, q: 1 },
      true,
      true,
    ],
    ['another job', 0, { id: 'j1' }, true, false],
    ['before the patch: a stale record matched by id', 1, { r: 0 }, false, true],
    ['before the patch: another job', 0, { id: 'j1' }, false, false],
  ];
  it.each(rows)('%s', (_case, r, c, exact, matched) => {
    const f = entry(r);
    expect(ownerOf([f], done(c), exact)).toBe(matched ? f : undefined);
  });
});

describe('applyStep with exact runs', () => {
  const o = BatchOptions.parse({ retry: { maxAttempts: 5 } });

  it('ignores a stale FAILED record of a retried job: the retry stays in flight, nothing waits', () => {
    const d = { ...newLedger(), inFlight: [entry(1)] };
    applyStep(d, { ...emptyStepResult(), completions: [done({ r: 0 })] }, NOW, o, 4, true);
    expect(d.inFlight).toEqual([entry(1)]);
    expect([d.waiting, d.finals]).toEqual([[], []]);
  });

  it("takes the retry's own outcome", () => {
    const d = { ...newLedger(), inFlight: [entry(1)] };
    applyStep(d, { ...emptyStepResult(), completions: [done({ r: 1, s: 'COMPLETED' })] }, NOW, o, 4, true);
    expect(d.inFlight).toEqual([]);
    expect(d.finals).toEqual([expect.objectContaining({ i: 0, s: 'COMPLETED', a: 2 })]);
  });

  it('a run counted past the ledger: the next /retry counts from it', () => {
    const d = { ...newLedger(), inFlight: [entry(1)] };
    applyStep(d, { ...emptyStepResult(), completions: [done({ r: 2 })] }, NOW, o, 4, true);
    expect(d.waiting).toEqual([expect.objectContaining({ id: 'j0', r: 2, a: 3 })]);
  });

  it('without exact runs (histories before the patch) the stale record is taken as the retry failing', () => {
    const d = { ...newLedger(), inFlight: [entry(1)] };
    applyStep(d, { ...emptyStepResult(), completions: [done({ r: 0 })] }, NOW, o, 4);
    expect(d.inFlight).toEqual([]);
    expect(d.waiting).toEqual([expect.objectContaining({ id: 'j0', r: 1, a: 3 })]);
  });
});
