/**
 * From what the load asks to the bounds: the target (activation, step limits, dead band,
 * stabilization, cooldown), the caps on it (ceiling, spend cap), and the bounds (warm workers,
 * headroom, busy workers kept). Each step adds its words to the demand's. Pure: part of the policy (policy.ts).
 */
import type { Bounds, HealthSample } from '../../contracts/scaler';
import { secs, type Demand } from './demand';
import type { PolicyInput } from './policy-input';

/** The target before the caps: activation apart, fast up within step limits, down after the window, 1 -> 0 after the cooldown. */
export function targetFor(i: PolicyInput, d: Demand): number {
  const { now, config: c, memory: m } = i;
  const { rec, load, lastLoadAt, why } = d;
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
  const stepLimit = `step limit: +${upLimit - startOfPeriod} per ${secs(c.scaleUp.periodMs)} from ${startOfPeriod}`;
  const inBand = (to: number): boolean => prev > 0 && Math.abs(to - prev) <= c.deadBand * prev;
  const deadBand = `within the dead band (${c.deadBand * 100} %) of ${prev}`;
  if (prev === 0) {
    if (load < c.activationThreshold)
      why.push(load > 0 ? `below the activation threshold ${c.activationThreshold}` : 'idle');
    else target = Math.min(Math.max(rec, 1), upLimit);
    if (target > 0 && target < rec) why.push(stepLimit);
  } else if (rec > prev) {
    if (inBand(rec)) why.push(deadBand);
    else target = Math.min(rec, upLimit);
    if (target < rec) why.push(stepLimit);
  } else if (rec < prev) {
    const inWindow = m.history.filter((h) => h.at > now - c.stabilizationWindowMs);
    const stable = Math.max(rec, ...inWindow.map((h) => h.rec));
    if (stable >= prev)
      why.push(`stabilization: ${stable} recommended within the last ${secs(c.stabilizationWindowMs)}`);
    else if (inBand(stable)) why.push(deadBand);
    else if (stable > 0) target = stable;
    else if (lastLoadAt !== undefined && now - lastLoadAt < c.cooldownMs) {
      target = 1;
      if (prev > 1) why.push('down to 1');
      why.push(`cooldown: no load for ${secs(now - lastLoadAt)} of ${secs(c.cooldownMs)} before 0`);
    } else target = 0;
  }
  return target;
}

/** Says why the target was capped (ceiling or spend cap); whether the spend cap binds. */
export function capNotes(i: PolicyInput, d: Demand, wanted: number, target: number): boolean {
  const c = i.config;
  const { spendMax, hi, lo, price, why } = d;
  const spendCapBinding = spendMax < hi && (wanted > spendMax || lo > spendMax || wanted + c.headroom > spendMax);
  if (target < wanted)
    why.push(
      spendMax < hi && wanted > spendMax
        ? `spend cap ${c.maxSpendPerHour}/h at ${price}/worker-hour allows ${spendMax}`
        : `ceiling ${hi}`,
    );
  if (c.maxSpendPerHour !== undefined && price === undefined) why.push('spend cap not applied: price unknown');
  return spendCapBinding;
}

/**
 * The bounds: warm workers = the target (at least the floor), workersMax = that + headroom, both under the cap.
 * With warmHoldMs the warm workers follow the load of the last warmHoldMs only (0: none above the floor)
 * while workersMax keeps the target through the stabilization window (the platform stops idle workers).
 */
export function boundsFor(i: PolicyInput, last: HealthSample, d: Demand, target: number): Bounds {
  const { now, config: c, memory: m } = i;
  const { lo, hi, cap, rec, win, why } = d;
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
  return { workersMin, workersMax };
}
