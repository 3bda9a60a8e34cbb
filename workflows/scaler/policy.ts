/**
 * The scaler's policy: from a window of health samples, the endpoint's bounds, the config and the
 * messages (override, pause, schedule window, batch backlogs), the bounds the endpoint should have
 * and why, in words; and what it remembers for the next tick. Pure and deterministic: the workflow
 * and the table test call it alike. Its steps: explicit actions and failed samples, drift, then what
 * the load asks (demand.ts), the target and the bounds (target.ts), and the decision's kind and write.
 */
import type { Bounds, Decision, DecisionKind } from '../../contracts/scaler';
import { demandOf, liveBacklogs, secs, type Demand } from './demand';
import type { PolicyInput, PolicyMemory } from './policy-input';
import { boundsFor, capNotes, targetFor } from './target';

export type { PolicyInput, PolicyMemory } from './policy-input';

const same = (a: Bounds, b: Bounds): boolean => a.workersMin === b.workersMin && a.workersMax === b.workersMax;
const fmt = (b: Bounds): string => `${b.workersMin}..${b.workersMax}`;

/** A decision that leaves the target as it was: these bounds (by default the ones read), written when they differ. */
type Hold = (kind: DecisionKind, reason: string, bounds?: Bounds, extra?: Partial<Decision>) => Decision;

/** Decides the bounds for this tick. */
export function decide(i: PolicyInput): Decision {
  const { memory: m } = i;
  const base = { at: i.now, target: m.target, recommendation: m.target, spendCapBinding: false, fallbackActive: false };
  const hold: Hold = (kind, reason, bounds = i.bounds, extra = {}) => ({
    ...base,
    kind,
    reason,
    bounds,
    write: !same(bounds, i.bounds),
    ...extra,
  });
  const held = explicitOrFailed(i, hold);
  if (held) return held;
  const last = i.samples.at(-1)!;
  // Someone else changed the bounds.
  const drifted = m.known !== undefined && !same(i.bounds, m.known);
  if (drifted && i.config.drift === 'adopt') return adoptDrift(i, hold);
  const demand = demandOf(i, last);
  const target = targetFor(i, demand);
  const capped = Math.max(0, Math.min(target, demand.cap));
  const spendCapBinding = capNotes(i, demand, target, capped);
  const bounds = boundsFor(i, last, demand, capped);
  return decision(i, demand, bounds, capped, spendCapBinding, drifted);
}

/** Explicit actions first (a pin holds until it expires, pause stops every change), then the fallback or a hold while `/health` fails. */
function explicitOrFailed(i: PolicyInput, hold: Hold): Decision | undefined {
  const { now, config: c } = i;
  if (i.override && now < i.override.until) {
    const b = { workersMin: i.override.workersMin, workersMax: i.override.workersMax };
    return hold('override', `override pins ${fmt(b)} for ${secs(i.override.until - now)} more`, b);
  }
  if (i.paused) return hold('paused', `paused: bounds left at ${fmt(i.bounds)}`);
  const last = i.samples.at(-1);
  const fb = c.fallback;
  if (i.healthFailures >= fb.failureThreshold) {
    const err = last?.error ? ` (${last.error})` : '';
    if (fb.mode === 'bounds') {
      const b = { workersMin: fb.workersMin!, workersMax: fb.workersMax! };
      return hold('fallback', `health failed ${i.healthFailures} times in a row${err}: fallback bounds ${fmt(b)}`, b, {
        fallbackActive: true,
      });
    }
    return hold(
      'fallback',
      `health failed ${i.healthFailures} times in a row${err}: bounds frozen at ${fmt(i.bounds)}`,
      i.bounds,
      { fallbackActive: true, write: false },
    );
  }
  if (!last || !last.ok)
    return hold(
      'hold',
      `health failed ${i.healthFailures} of ${fb.failureThreshold} times before the fallback: holding ${fmt(i.bounds)}`,
      i.bounds,
      { write: false },
    );
  return undefined;
}

/** Someone else changed the bounds and the config adopts them: they become the new floor and ceiling. */
function adoptDrift(i: PolicyInput, hold: Hold): Decision {
  const m = i.memory;
  const adopt = { floor: i.bounds.workersMin, ceiling: i.bounds.workersMax };
  const target = Math.min(Math.max(m.target, adopt.floor), adopt.ceiling);
  return hold(
    'drift-adopt',
    `someone else changed the bounds from ${fmt(m.known!)} to ${fmt(i.bounds)}: adopted as the new floor ${adopt.floor} and ceiling ${adopt.ceiling}`,
    i.bounds,
    { adopt, target, recommendation: target, write: false },
  );
}

/** The decision for these bounds: its kind, whether it writes now (a raise at once, a lowering after the min gap), and why. */
function decision(
  i: PolicyInput,
  d: Demand,
  bounds: Bounds,
  target: number,
  spendCapBinding: boolean,
  drifted: boolean,
): Decision {
  const { now, config: c, memory: m } = i;
  const { why } = d;
  const prev = m.target;
  const changed = !same(bounds, i.bounds);
  const raise = changed && bounds.workersMin >= i.bounds.workersMin && bounds.workersMax >= i.bounds.workersMax;
  const sinceWrite = m.lastWriteAt === undefined ? Infinity : now - m.lastWriteAt;
  const write = changed && (raise || sinceWrite >= c.minWriteGapMs);
  let kind: DecisionKind = !changed
    ? 'hold'
    : prev === 0 && target > 0
      ? 'activate'
      : target === 0 && prev > 0
        ? 'deactivate'
        : raise
          ? 'scale-up'
          : 'scale-down';
  if (drifted) {
    kind = 'drift-reassert';
    why.unshift(`someone else changed the bounds from ${fmt(m.known!)} to ${fmt(i.bounds)}: reasserting`);
  }
  if (changed && !write)
    why.push(`write deferred: last write ${secs(sinceWrite)} ago, min gap ${secs(c.minWriteGapMs)}`);
  const head = changed ? `${fmt(i.bounds)} -> ${fmt(bounds)}` : `${fmt(bounds)} held`;
  return {
    at: now,
    kind,
    reason: `${head}; target ${prev} -> ${target}; ${why.join('; ')}`,
    bounds,
    write,
    target,
    recommendation: d.rec,
    spendCapBinding,
    fallbackActive: false,
  };
}

/** The memory after a decision; `written` says whether its bounds were written (or already in place). */
export function remember(i: PolicyInput, d: Decision, written: boolean): PolicyMemory {
  const { now, config: c, memory: m } = i;
  const keepMs = Math.max(c.stabilizationWindowMs, c.scaleUp.periodMs);
  const counts = d.kind !== 'override' && d.kind !== 'paused' && d.kind !== 'fallback' && i.samples.at(-1)?.ok === true;
  const history = counts ? [...m.history, { at: now, rec: d.recommendation, target: d.target }] : [...m.history];
  const last = i.samples.at(-1);
  const load = last?.ok ? last.inQueue + last.inProgress : 0;
  const backlog = liveBacklogs(i.backlogs, now, c.backlogTtlMs).length > 0;
  const next: PolicyMemory = {
    target: d.target,
    history: history.filter((h) => h.at > now - keepMs),
    known: knownAfter(i, d, written),
  };
  const lastLoadAt = load > 0 || backlog ? now : m.lastLoadAt;
  if (lastLoadAt !== undefined) next.lastLoadAt = lastLoadAt;
  const lastWriteAt = d.write && written ? now : m.lastWriteAt;
  if (lastWriteAt !== undefined) next.lastWriteAt = lastWriteAt;
  return next;
}

/** The bounds the scaler stands behind after a decision: what it wrote, or what it read and accepted. */
function knownAfter(i: PolicyInput, d: Decision, written: boolean): Bounds {
  const kept = i.memory.known ?? i.bounds;
  if (d.write) return written ? d.bounds : kept;
  // A deferred reassert, or no fresh sample: the drift (if any) is still to be dealt with.
  if (d.kind === 'drift-reassert' || (d.kind === 'hold' && i.samples.at(-1)?.ok !== true)) return kept;
  // Held, adopted, paused or frozen: the bounds as they are now are the baseline.
  return i.bounds;
}
