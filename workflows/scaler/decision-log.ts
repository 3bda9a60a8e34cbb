/** The scaler's decision log (the last decisions and their reasons, as the status shows them): which decisions enter it, and the workflow's own entries. */
import type { Bounds, Decision, DecisionKind } from '../../contracts';

/** Decisions kept in the state. */
export const DECISIONS_KEPT = 20;

/** Appends a decision to the log when it writes, adopts, or its kind changes; keeps the last {@link DECISIONS_KEPT}. */
export function logDecision(decisions: Decision[], d: Decision): void {
  const prev = decisions.at(-1);
  if (d.write || d.adopt || !prev || prev.kind !== d.kind) decisions.push(d);
  if (decisions.length > DECISIONS_KEPT) decisions.splice(0, decisions.length - DECISIONS_KEPT);
}

/** A decision of the workflow itself (start, restore), not of the policy. */
export function note(kind: DecisionKind, reason: string, bounds: Bounds, target: number, write: boolean): Decision {
  return {
    at: Date.now(),
    kind,
    reason,
    bounds,
    write,
    target,
    recommendation: target,
    spendCapBinding: false,
    fallbackActive: false,
  };
}
