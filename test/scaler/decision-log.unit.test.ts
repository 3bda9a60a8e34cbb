/**
 * The scaler's decision log (workflows/scaler/decision-log.ts) as a table: a decision enters it when
 * it writes, adopts, or its kind changes, and the log keeps the last DECISIONS_KEPT. Pure: no server, no process.
 */
import { describe, expect, it } from 'vitest';
import type { Decision, DecisionKind } from '../../contracts';
import { DECISIONS_KEPT, logDecision, note } from '../../workflows/scaler/decision-log';

const bounds = { workersMin: 0, workersMax: 1 };
const d = (kind: DecisionKind, extra: Partial<Decision> = {}): Decision => ({
  at: 0,
  kind,
  reason: kind,
  bounds,
  write: false,
  target: 0,
  recommendation: 0,
  spendCapBinding: false,
  fallbackActive: false,
  ...extra,
});

describe('logDecision: which decisions enter the log', () => {
  it.each<[string, Decision[], Decision, boolean]>([
    ['the first decision', [], d('hold'), true],
    ['the same kind again, no write', [d('hold')], d('hold', { reason: 'again' }), false],
    ['another kind', [d('hold')], d('scale-up'), true],
    ['the same kind with a write', [d('scale-up', { write: true })], d('scale-up', { write: true }), true],
    ['the same kind that adopts', [d('drift-adopt')], d('drift-adopt', { adopt: { floor: 1, ceiling: 2 } }), true],
    ['compared with the last entry only', [d('hold'), d('paused')], d('hold'), true],
  ])('%s', (_, log, next, entered) => {
    const before = log.length;
    logDecision(log, next);
    expect(log.length - before).toBe(entered ? 1 : 0);
    if (entered) expect(log.at(-1)).toBe(next);
  });

  it(`keeps the last ${DECISIONS_KEPT}`, () => {
    const log: Decision[] = [];
    for (let n = 0; n < DECISIONS_KEPT + 5; n++) logDecision(log, d('scale-up', { write: true, tick: n }));
    expect(log.map((x) => x.tick)).toEqual(Array.from({ length: DECISIONS_KEPT }, (_, k) => k + 5));
  });
});

describe("note: the workflow's own decisions", () => {
  it('carries its target as the recommendation, and no policy flag', () => {
    const n = note('restore', 'stopped', { workersMin: 1, workersMax: 3 }, 2, true);
    expect(n).toMatchObject({
      kind: 'restore',
      reason: 'stopped',
      bounds: { workersMin: 1, workersMax: 3 },
      write: true,
      target: 2,
      recommendation: 2,
      spendCapBinding: false,
      fallbackActive: false,
    });
  });
});
