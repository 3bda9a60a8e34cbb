/**
 * The scaler's policy: from a window of health samples, the endpoint's bounds, the config and the
 * messages (override, pause, schedule window, batch backlogs), the bounds the endpoint should have
 * and why, in words. Pure and deterministic: the workflow and the table test call it alike.
 */
import type {
  Backlog,
  Bounds,
  Decision,
  DecisionKind,
  HealthSample,
  Override,
  ScaleWindow,
  ScalerConfig,
} from '../../contracts/scaler';
import { backlogRecommendation, liveBacklogs, loadRecommendation, observedJobMs, secs, windowAt } from './demand';

/** What the policy remembers between ticks (carried across continue-as-new). */
export interface PolicyMemory {
  /** The worker target after the last decision. */
  target: number;
  /** One entry per tick: the raw recommendation and the target, for stabilization and step limits. */
  history: { at: number; rec: number; target: number }[];
  /** Last time there was load (jobs or a backlog): the cooldown to 0 counts from it. */
  lastLoadAt?: number;
  lastWriteAt?: number;
  /** The bounds the scaler last wrote or accepted: anything else read back is drift. */
  known?: Bounds;
}

export interface PolicyInput {
  now: number;
  config: ScalerConfig;
  /** Health samples, oldest first (failed ones have `ok: false`). */
  samples: HealthSample[];
  /** The endpoint's bounds as read now. */
  bounds: Bounds;
  memory: PolicyMemory;
  /** Failed health samples in a row. */
  healthFailures: number;
  pricePerHour?: number;
  backlogs?: Backlog[];
  window?: ScaleWindow;
  override?: Override;
  paused?: boolean;
}

const same = (a: Bounds, b: Bounds): boolean => a.workersMin === b.workersMin && a.workersMax === b.workersMax;
const fmt = (b: Bounds): string => `${b.workersMin}..${b.workersMax}`;

/** Decides the bounds for this tick. */
export function decide(i: PolicyInput): Decision {
  const { now, config: c, memory: m } = i;
  const base = { at: now, target: m.target, recommendation: m.target, spendCapBinding: false, fallbackActive: false };
  const hold = (
    kind: DecisionKind,
    reason: string,
    bounds: Bounds = i.bounds,
    extra: Partial<Decision> = {},
  ): Decision => ({ ...base, kind, reason, bounds, write: !same(bounds, i.bounds), ...extra });

  // Explicit actions first: a pin holds until it expires, pause stops every change.
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

  // Someone else changed the bounds.
  const drifted = m.known !== undefined && !same(i.bounds, m.known);
  if (drifted && c.drift === 'adopt') {
    const adopt = { floor: i.bounds.workersMin, ceiling: i.bounds.workersMax };
    const target = Math.min(Math.max(m.target, adopt.floor), adopt.ceiling);
    return hold(
      'drift-adopt',
      `someone else changed the bounds from ${fmt(m.known!)} to ${fmt(i.bounds)}: adopted as the new floor ${adopt.floor} and ceiling ${adopt.ceiling}`,
      i.bounds,
      { adopt, target, recommendation: target, write: false },
    );
  }

  // The recommendation: load, or the batches' backlogs, whichever asks more.
  const win = windowAt(i.window, now);
  const lo = win?.floor ?? c.floor;
  const hi = win?.ceiling ?? c.ceiling;
  const price = c.pricePerHour ?? i.pricePerHour;
  const spendMax =
    c.maxSpendPerHour !== undefined && price !== undefined && price > 0
      ? Math.floor(c.maxSpendPerHour / price + 1e-9)
      : Infinity;
  const cap = Math.min(hi, spendMax);
  const backlogs = liveBacklogs(i.backlogs, now, c.backlogTtlMs);
  const timed = backlogs.filter((b) => b.jobMs !== undefined);
  const jobMs = timed.length > 0 ? timed.reduce((n, b) => n + b.jobMs!, 0) / timed.length : observedJobMs(i.samples);
  const fromLoad = loadRecommendation(last, c, jobMs);
  const fromBacklog = backlogRecommendation(backlogs, c, now, cap);
  const rec = Math.max(fromLoad.rec, fromBacklog.rec);
  const load = last.inQueue + last.inProgress + backlogs.reduce((n, b) => n + b.remaining, 0);
  const why: string[] = [
    `load ${last.inQueue} queued + ${last.inProgress} in progress: ${fromLoad.why} = ${fromLoad.rec}`,
    ...fromBacklog.why,
  ];
  const lastLoadAt = load > 0 ? now : m.lastLoadAt;

  // The target: activation apart, fast up within step limits, down after the window, 1 -> 0 after the cooldown.
  const prev = m.target;
  let target = prev;
  const period = m.history.filter((h) => h.at > now - c.scaleUp.periodMs);
  const startOfPeriod = Math.min(prev, ...period.map((h) => h.target));
  // In the cost mode (warmHoldMs) the target sets the capacity (workersMax) and the warm workers only up to the
  // load seen: no step limit (the platform starts a worker per queued job, and idle capacity costs nothing).
  const upLimit =
    c.warmHoldMs !== undefined
      ? Infinity
      : startOfPeriod + Math.max(c.scaleUp.workers, Math.ceil((startOfPeriod * c.scaleUp.percent) / 100));
  const inBand = (to: number): boolean => prev > 0 && Math.abs(to - prev) <= c.deadBand * prev;
  if (prev === 0) {
    if (load < c.activationThreshold)
      why.push(load > 0 ? `below the activation threshold ${c.activationThreshold}` : 'idle');
    else target = Math.min(Math.max(rec, 1), upLimit);
    if (target > 0 && target < rec)
      why.push(`step limit: +${upLimit - startOfPeriod} per ${secs(c.scaleUp.periodMs)} from ${startOfPeriod}`);
  } else if (rec > prev) {
    if (inBand(rec)) why.push(`within the dead band (${c.deadBand * 100} %) of ${prev}`);
    else target = Math.min(rec, upLimit);
    if (target < rec)
      why.push(`step limit: +${upLimit - startOfPeriod} per ${secs(c.scaleUp.periodMs)} from ${startOfPeriod}`);
  } else if (rec < prev) {
    const inWindow = m.history.filter((h) => h.at > now - c.stabilizationWindowMs);
    const stable = Math.max(rec, ...inWindow.map((h) => h.rec));
    if (stable >= prev)
      why.push(`stabilization: ${stable} recommended within the last ${secs(c.stabilizationWindowMs)}`);
    else if (inBand(stable)) why.push(`within the dead band (${c.deadBand * 100} %) of ${prev}`);
    else if (stable > 0) target = stable;
    else if (lastLoadAt !== undefined && now - lastLoadAt < c.cooldownMs) {
      target = 1;
      if (prev > 1) why.push('down to 1');
      why.push(`cooldown: no load for ${secs(now - lastLoadAt)} of ${secs(c.cooldownMs)} before 0`);
    } else target = 0;
  }
  const wanted = target;
  target = Math.max(0, Math.min(target, cap));
  const spendCapBinding = spendMax < hi && (wanted > spendMax || lo > spendMax || wanted + c.headroom > spendMax);
  if (target < wanted)
    why.push(
      spendMax < hi && wanted > spendMax
        ? `spend cap ${c.maxSpendPerHour}/h at ${price}/worker-hour allows ${spendMax}`
        : `ceiling ${hi}`,
    );
  if (c.maxSpendPerHour !== undefined && price === undefined) why.push('spend cap not applied: price unknown');

  // The bounds: warm workers = the target (at least the floor), workersMax = that + headroom, both under the cap.
  // With warmHoldMs the warm workers follow the load of the last warmHoldMs only (0: none above the floor)
  // while workersMax keeps the target through the stabilization window (the platform stops idle workers).
  const warm =
    c.warmHoldMs === undefined
      ? target
      : c.warmHoldMs === 0
        ? 0
        : Math.min(target, Math.max(rec, ...m.history.filter((h) => h.at > now - c.warmHoldMs!).map((h) => h.rec)));
  const workersMin = Math.min(Math.max(warm, lo), cap);
  let workersMax = Math.min(Math.max(target, lo) + c.headroom, cap);
  if (warm < target)
    why.push(
      `warm ${warm}: ${c.warmHoldMs === 0 ? 'none held' : `load of the last ${secs(c.warmHoldMs!)}`}, idle workers above it stop after the endpoint's idleTimeout`,
    );
  const busyKeep = Math.min(last.running, i.bounds.workersMax);
  if (workersMax < busyKeep) {
    workersMax = busyKeep;
    why.push(`workersMax kept at ${busyKeep}: ${last.running} workers are busy`);
  }
  if (win) why.push(`window${win.source ? ` ${win.source}` : ''}: floor ${lo}, ceiling ${hi}`);
  const bounds = { workersMin, workersMax };
  const changed = !same(bounds, i.bounds);
  const raise = changed && workersMin >= i.bounds.workersMin && workersMax >= i.bounds.workersMax;
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
    recommendation: rec,
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
