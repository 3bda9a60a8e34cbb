/** The bulk batch's plan (workflows/batch/plan.ts) and controls (controls.ts) as tables: ledger + controls → next step. Pure. */
import { describe, expect, it } from 'vitest';
import { BatchWorkflowInput, type BatchOptionsInput, type WaitReason } from '../../contracts';
import { configure, initialControls, submitBlockers, type Controls } from '../../workflows/batch/controls';
import { newLedger, type InFlight, type LedgerData, type Waiting } from '../../workflows/batch/ledger';
import { planStep } from '../../workflows/batch/plan';

const NOW = 10_000_000;
const inputOf = (o: BatchOptionsInput = {}) =>
  BatchWorkflowInput.parse({ endpointId: 'e', source: '/in.jsonl', outDir: '/out', options: o });
const controls = (c: Partial<Controls> = {}): Controls => ({ paused: false, cancelling: false, concurrency: 10, ...c });
const ledgerWith = (d: Partial<LedgerData>): LedgerData => ({ ...newLedger(), ...d });
const flying = (i: number, f: Partial<InFlight> = {}): InFlight => ({
  i,
  o: i * 10,
  l: 10,
  id: `j${i}`,
  a: 1,
  r: 0,
  ids: [`j${i}`],
  t0: 0,
  p: NOW + 30_000,
  pe: 30_000,
  ...f,
});
const waiting = (i: number, w: Partial<Waiting> = {}): Waiting => ({
  i,
  o: i * 10,
  l: 10,
  id: `j${i}`,
  a: 2,
  r: 0,
  ids: [`j${i}`],
  t0: 0,
  at: NOW,
  until: NOW + 60_000,
  last: { s: 'FAILED' },
  ...w,
});

describe('submitBlockers', () => {
  const rows: [string, Partial<Controls>, number, WaitReason[]][] = [
    ['nothing blocks', {}, 0, []],
    ['paused', { paused: true }, 0, ['paused']],
    ['under the cost cap', { maxCost: 5 }, 4.99, []],
    ['at the cost cap', { maxCost: 5 }, 5, ['cost-cap']],
    ['before the deadline', { deadline: NOW + 1 }, 0, []],
    ['at the deadline', { deadline: NOW }, 0, ['deadline']],
    ['all three', { paused: true, maxCost: 1, deadline: NOW - 1 }, 2, ['paused', 'cost-cap', 'deadline']],
    ["its feeder's stop (a pipeline's cost cap)", { stop: 'cost-cap' }, 0, ['cost-cap']],
    ['its own cost cap and the same stop: once', { maxCost: 1, stop: 'cost-cap' }, 1, ['cost-cap']],
  ];
  it.each(rows)('%s', (_name, c, spend, why) => {
    expect(submitBlockers(controls(c), spend, NOW)).toEqual(why);
  });
});

describe('controls: initial and configure', () => {
  it('starts from the options and takes a configure update (null clears a cap)', () => {
    const c = initialControls(inputOf({ concurrency: 7, maxCost: 3, deadline: NOW }).options);
    expect(c).toEqual({ paused: false, cancelling: false, concurrency: 7, maxCost: 3, deadline: NOW });
    configure(c, { concurrency: 9, keyLimit: 2, maxCost: null });
    expect(c).toEqual({ paused: false, cancelling: false, concurrency: 9, keyLimit: 2, deadline: NOW });
    configure(c, { deadline: null, maxCost: 8 });
    expect(c).toEqual({ paused: false, cancelling: false, concurrency: 9, keyLimit: 2, maxCost: 8 });
  });
});

describe('planStep', () => {
  it('reads a window of new lines, and refills it itself with webhooks and no caps', () => {
    const { plan, waiting } = planStep(newLedger(), inputOf(), controls(), 0, NOW);
    expect(plan.read).toEqual({ from: { line: 0, offset: 0 }, lines: 10, room: 10, keyCounts: {} });
    expect(plan.collect).toEqual({
      waitMs: 0,
      min: 1,
      refillMs: 1000,
      last: { held: 0, waitMs: 5000, linger: 1000 },
    });
    expect(plan.more).toBe(true);
    expect(waiting).toEqual([]);
  });

  const noRefill: [string, BatchOptionsInput, Partial<Controls>][] = [
    ['polling', { completion: 'poll' }, {}],
    ['a key cap', {}, { keyLimit: 2 }],
    ['a cost cap', {}, { maxCost: 100 }],
  ];
  it('keeps refilling a full window with webhooks and no caps (the step frees slots itself)', () => {
    const d = ledgerWith({ inFlight: Array.from({ length: 10 }, (_, i) => flying(i)) });
    const { plan } = planStep(d, inputOf(), controls(), 0, NOW);
    expect(plan.read).toMatchObject({ lines: 0, room: 0 });
    expect(plan.collect.refillMs).toBe(1000);
  });

  it('a due retry the full window has no room for stops the refill (since the patch), so the next step gives it the room completions free', () => {
    const full = Array.from({ length: 10 }, (_, i) => flying(i));
    const d = ledgerWith({ inFlight: full, waiting: [waiting(40, { at: NOW - 1 })] });
    const first = planStep(d, inputOf(), controls(), 0, NOW, false, true).plan;
    expect(first.retry).toEqual([]);
    expect(first.read).toBeUndefined();
    expect(first.collect.refillMs).toBeUndefined();
    // Before the patch the window was refilled, the retry waiting for the input's end.
    expect(planStep(d, inputOf(), controls(), 0, NOW).plan.collect.refillMs).toBe(1000);
    // Not due yet: refilled as before.
    const later = ledgerWith({ inFlight: full, waiting: [waiting(40, { at: NOW + 1000 })] });
    expect(planStep(later, inputOf(), controls(), 0, NOW, false, true).plan.collect.refillMs).toBe(1000);
    // One completion later: the retry takes the room first, the refill goes on.
    const room = ledgerWith({ inFlight: full.slice(1), waiting: [waiting(40, { at: NOW - 1 })] });
    const next = planStep(room, inputOf(), controls(), 0, NOW, false, true).plan;
    expect(next.retry.map((r) => r.i)).toEqual([40]);
    expect(next.collect.refillMs).toBe(1000);
  });

  it('an open feed caught up with: reads from its end and refills there for 3 s, a file 1 s (more rows may come); a closed one does not', () => {
    const d = ledgerWith({ eof: true, cursor: { line: 3, offset: 30 }, inFlight: [flying(0), flying(1)] });
    const open = planStep(d, inputOf(), controls(), 0, NOW, true).plan;
    expect(open.read).toEqual({ from: { line: 3, offset: 30 }, lines: 8, room: 8, keyCounts: {} });
    expect(open.collect).toMatchObject({ waitMs: 0, refillMs: 3000 });
    const closed = planStep(d, inputOf(), controls(), 0, NOW, false).plan;
    expect(closed.read).toBeUndefined();
    expect(closed.collect.refillMs).toBeUndefined();
  });

  it.each(noRefill)('does not refill with %s', (_name, o, c) => {
    const { plan } = planStep(newLedger(), inputOf(o), controls(c), 0, NOW);
    expect(plan.read).toBeDefined();
    expect(plan.collect.refillMs).toBeUndefined();
  });

  it('reads twice the room with a key cap (lines wait for their key)', () => {
    const d = ledgerWith({ inFlight: [flying(0, { k: 'a' })] });
    const { plan } = planStep(d, inputOf({ keyPath: '$.k' }), controls({ keyLimit: 1 }), 0, NOW);
    expect(plan.read).toMatchObject({ lines: 18, room: 9, keyPath: '$.k', keyLimit: 1, keyCounts: { a: 1 } });
  });

  it('waits for completions when the window is full, until the next poll is due (at most 5 s)', () => {
    const d = ledgerWith({ inFlight: Array.from({ length: 10 }, (_, i) => flying(i)) });
    const { plan, waiting } = planStep(d, inputOf({ completion: 'poll' }), controls(), 0, NOW);
    expect(plan.read).toBeUndefined();
    expect(plan.collect).toEqual({ waitMs: 5000, min: 1 });
    expect(waiting).toEqual(['window-full']);
  });

  it('waits for a few completions while input is left, for every job held once it is all sent (lingering 1 s for them)', () => {
    const held = Array.from({ length: 30 }, (_, i) => flying(i));
    const c = controls({ concurrency: 32 });
    const left = planStep(ledgerWith({ inFlight: held }), inputOf({ completion: 'poll' }), c, 0, NOW).plan;
    expect(left.collect.min).toBe(4);
    expect(left.collect.linger).toBeUndefined();
    const allSent = planStep(ledgerWith({ eof: true, inFlight: held }), inputOf(), c, 0, NOW).plan;
    expect(allSent.collect).toEqual({ waitMs: 5000, min: 30, linger: 1000 });
    // Deferred lines wait for a key's slot, a retry for its backoff: a completion may let them go.
    const deferred = ledgerWith({ eof: true, inFlight: held, deferred: [{ i: 40, o: 400, l: 10, k: 'a' }] });
    expect(
      planStep(deferred, inputOf({ keyPath: '$.k' }), controls({ concurrency: 32, keyLimit: 1 }), 0, NOW).plan.collect
        .min,
    ).toBe(4);
    const retry = ledgerWith({ eof: true, inFlight: held, waiting: [waiting(40, { at: NOW + 1000 })] });
    expect(planStep(retry, inputOf(), c, 0, NOW).plan.collect.min).toBe(4);
    // An open feed may grow.
    expect(planStep(ledgerWith({ eof: true, inFlight: held }), inputOf(), c, 0, NOW, true).plan.collect.min).toBe(4);
  });

  it('a read of a file may collect on past its last line (every job held), unless lines, retries or answers wait', () => {
    const held = Array.from({ length: 20 }, (_, i) => flying(i, { p: NOW + 2000 }));
    const c = controls({ concurrency: 32 });
    const read = planStep(ledgerWith({ inFlight: held }), inputOf(), c, 0, NOW).plan;
    expect(read.collect.last).toEqual({ held: 20, waitMs: 2000, linger: 1000 });
    const unanswered = { q: 1, dm: 'd', dl: NOW + 5000 };
    const not: [string, Partial<LedgerData>, boolean?][] = [
      ['a deferred line', { deferred: [{ i: 40, o: 400, l: 10 }] }],
      ['a retry in its backoff', { waiting: [waiting(40, { at: NOW + 1000 })] }],
      ['a submission not answered', { submitting: [{ i: 41, o: 410, l: 10, ...unanswered }] }],
      ['an open feed', {}, true],
    ];
    for (const [why, d, feed] of not) {
      const plan = planStep(ledgerWith({ inFlight: held, ...d }), inputOf(), c, 0, NOW, feed).plan;
      expect(plan.collect.last, why).toBeUndefined();
    }
    // Nothing to read: no last line to send.
    expect(planStep(ledgerWith({ eof: true, inFlight: held }), inputOf(), c, 0, NOW).plan.collect.last).toBeUndefined();
  });

  it('polls the jobs whose poll is due', () => {
    const d = ledgerWith({ eof: true, inFlight: [flying(0, { p: NOW }), flying(1)] });
    const { plan, waiting } = planStep(d, inputOf(), controls(), 0, NOW);
    expect(plan.poll).toEqual(['j0']);
    expect(plan.collect.waitMs).toBe(0);
    expect(waiting).toEqual(['input-done']);
  });

  const retries: [string, Partial<Waiting>, 'retry' | 'resubmit' | 'not yet'][] = [
    ['a due retry while the result is retained: /retry', {}, 'retry'],
    ['a due retry after the result expired: resubmit', { until: NOW }, 'resubmit'],
    ['a retry in its backoff: not yet', { at: NOW + 1 }, 'not yet'],
  ];
  it.each(retries)('%s', (_name, w, how) => {
    const d = ledgerWith({ eof: true, waiting: [waiting(4, w)] });
    const { plan, waiting: why } = planStep(d, inputOf(), controls(), 0, NOW);
    if (how === 'not yet') {
      expect(plan.retry).toEqual([]);
      expect(why).toContain('retry-backoff');
    } else expect(plan.retry).toEqual([{ i: 4, o: 40, l: 10, id: 'j4', a: 2, how }]);
  });

  it('submits deferred lines whose key has room, the others wait for their key', () => {
    const d = ledgerWith({
      eof: true,
      inFlight: [flying(0, { k: 'a' })],
      deferred: [
        { i: 1, o: 10, l: 10, k: 'a' },
        { i: 2, o: 20, l: 10, k: 'b' },
      ],
    });
    const { plan, waiting } = planStep(d, inputOf({ keyPath: '$.k' }), controls({ keyLimit: 1 }), 0, NOW);
    expect(plan.submit).toEqual([{ i: 2, o: 20, l: 10, k: 'b' }]);
    expect(waiting).toContain('key-cap');
  });

  const blocked: [string, Partial<Controls>, number, WaitReason][] = [
    ['paused', { paused: true }, 0, 'paused'],
    ['at the cost cap', { maxCost: 1 }, 1, 'cost-cap'],
    ['past the deadline', { deadline: NOW - 1 }, 0, 'deadline'],
  ];
  it.each(blocked)('submits nothing, retries nothing when %s', (_name, c, spend, why) => {
    const d = ledgerWith({ waiting: [waiting(1)], deferred: [{ i: 2, o: 20, l: 10 }] });
    const { plan, waiting: reasons } = planStep(d, inputOf(), controls(c), spend, NOW);
    expect([plan.read, plan.submit, plan.retry, plan.more]).toEqual([undefined, [], [], undefined]);
    expect(reasons).toContain(why);
  });

  it('cancels every job in flight not cancelled yet when the batch is cancelling', () => {
    const d = ledgerWith({ inFlight: [flying(0), flying(1, { c: true })] });
    const { plan } = planStep(d, inputOf(), controls({ cancelling: true }), 0, NOW);
    expect(plan.cancel).toEqual(['j0']);
    expect(plan.read).toBeUndefined();
  });

  it('writes the outcomes decided so far', () => {
    const d = ledgerWith({ eof: true, finals: [{ i: 0, s: 'COMPLETED', a: 1, ids: ['j0'], t1: NOW }] });
    const { plan } = planStep(d, inputOf(), controls(), 0, NOW);
    expect(plan.write).toEqual(d.finals);
  });
});

describe('planStep with submissions not answered yet (submitting)', () => {
  const sg = (i: number, k?: string) => ({ i, o: i * 10, l: 10, ...(k ? { k } : {}), q: 1, dm: 'd', dl: NOW });

  it('they hold window slots and key slots, and are asked about every step', () => {
    const d = ledgerWith({
      inFlight: [flying(0)],
      submitting: [sg(1, 'x'), sg(2)],
      deferred: [{ i: 9, o: 90, l: 10, k: 'x' }],
    });
    const { plan } = planStep(
      d,
      inputOf({ keyPath: '$.k', keyLimit: 1 }),
      controls({ concurrency: 4, keyLimit: 1 }),
      0,
      NOW,
    );
    expect(plan.sg).toEqual([sg(1, 'x'), sg(2)]);
    expect(plan.read?.room).toBe(1);
    expect(plan.submit).toEqual([]); // key x is held by the submission of line 1
  });

  it('a window full of them is full', () => {
    const d = ledgerWith({ submitting: [sg(1), sg(2)] });
    const { plan, waiting } = planStep(d, inputOf({ completion: 'poll' }), controls({ concurrency: 2 }), 0, NOW);
    expect(plan.read).toBeUndefined();
    expect(waiting).toContain('window-full');
  });

  it('with only them left, the step waits for their answers (not 0 ms)', () => {
    const d = ledgerWith({ eof: true, submitting: [sg(1)] });
    const { plan } = planStep(d, inputOf(), controls(), 0, NOW);
    expect(plan.collect.waitMs).toBeGreaterThan(0);
    expect(plan.sg).toEqual([sg(1)]);
  });

  it('asks nothing when there are none', () => {
    expect(planStep(newLedger(), inputOf(), controls(), 0, NOW).plan.sg).toBeUndefined();
  });
});
