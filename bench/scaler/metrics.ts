/** The figures of bench/scaler from one replay: queue delay, worker-seconds, bursts, bounds writes and reversals, cold start. */
import { type PodSpan, type ReplayResult, type Sample } from './replay';

export const percentile = (xs: number[], p: number): number => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};

/** Worker time within [from, to], ms: each pod from its creation (cold start included) to its exit. */
export function workerMs(pods: PodSpan[], from: number, to: number): number {
  return pods.reduce((n, p) => n + Math.max(0, Math.min(p.endAt ?? to, to) - Math.max(p.createdAt, from)), 0);
}

/** Mean time from a pod's creation to its first `job-take` (its cold start), ms. */
export function coldStartMs(pods: PodSpan[]): number {
  const xs = pods.filter((p) => p.readyAt !== undefined).map((p) => p.readyAt! - p.createdAt);
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}

/** Each change of the bounds (every one is a GraphQL write: nobody else writes them), and whether it raised them. */
export function boundsChanges(
  samples: Sample[],
): { at: number; workersMin: number; workersMax: number; up: boolean; down: boolean }[] {
  const out: { at: number; workersMin: number; workersMax: number; up: boolean; down: boolean }[] = [];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    if (a.workersMin === b.workersMin && a.workersMax === b.workersMax) continue;
    out.push({
      at: b.at,
      workersMin: b.workersMin,
      workersMax: b.workersMax,
      up: b.workersMin > a.workersMin || b.workersMax > a.workersMax,
      down: b.workersMin < a.workersMin || b.workersMax < a.workersMax,
    });
  }
  return out;
}

/**
 * Decisions reversed within the stabilization window: a write that lowered the bounds within the
 * window after one that raised them, or raised them within the window after one that lowered them.
 */
export function reversals(changes: ReturnType<typeof boundsChanges>, windowMs: number): number {
  return changes.filter((c, i) =>
    changes.slice(0, i).some((p) => c.at - p.at < windowMs && ((p.up && c.down) || (p.down && c.up))),
  ).length;
}

/**
 * The same, for one bound alone: a change of `bound` against the direction of an earlier change of
 * that bound within the window. `workersMax` is the capacity the scaler allows (a reversal there is
 * flapping); `workersMin` the warm workers it keeps (with `warmHoldMs` it follows the load on purpose).
 */
export function boundReversals(
  changes: ReturnType<typeof boundsChanges>,
  bound: 'workersMin' | 'workersMax',
  start: number,
  windowMs: number,
): number {
  let prev = start;
  const moves: { at: number; dir: number }[] = [];
  for (const c of changes) {
    if (c[bound] !== prev) moves.push({ at: c.at, dir: Math.sign(c[bound] - prev) });
    prev = c[bound];
  }
  return moves.filter((c, i) => moves.slice(0, i).some((p) => c.at - p.at < windowMs && p.dir === -c.dir)).length;
}

/**
 * Per burst: time to raised bounds (the first workersMax above the one before the burst; none for
 * static bounds) and to running workers (as many busy workers as the burst can use: its jobs, at most the ceiling).
 */
export function burstTimes(
  r: ReplayResult,
  ceiling: number,
): { at: number; n: number; raisedMs?: number; workersMs?: number }[] {
  return r.bursts.map((b) => {
    const before = [...r.samples].reverse().find((s) => s.at <= b.at) ?? r.samples[0]!;
    const after = r.samples.filter((s) => s.at >= b.at);
    const raised = after.find((s) => s.workersMax > before.workersMax);
    const want = Math.min(b.n, ceiling);
    const running = after.find((s) => s.busy >= want);
    return {
      at: b.at - r.t0,
      n: b.n,
      ...(raised ? { raisedMs: raised.at - b.at } : {}),
      ...(running ? { workersMs: running.at - b.at } : {}),
    };
  });
}

export const round = (x: number, d = 0): number => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : x);
