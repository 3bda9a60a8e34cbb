/**
 * What the load asks of the scaler, before any limit: workers for the last health sample (per worker,
 * or to drain the queue within the target delay) and for the batches' backlogs (to meet their
 * deadlines), with the words that explain them; and the limits in force (window, ceiling, spend cap).
 * Pure: part of the policy (policy.ts).
 */
import type { Backlog, HealthSample, ScaleWindow, ScalerConfig } from '../../contracts/scaler';
import type { PolicyInput } from './policy-input';

/** A duration in words: tenths of a second. */
export const secs = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** The schedule window in force at `now`, if any. */
export function windowAt(w: ScaleWindow | undefined, now: number): ScaleWindow | undefined {
  return w && (w.until === undefined || now < w.until) ? w : undefined;
}

/** Backlog reports still worth acting on: work left, refreshed within the ttl. */
export function liveBacklogs(backlogs: Backlog[] | undefined, now: number, ttlMs: number): Backlog[] {
  return (backlogs ?? []).filter((b) => b.remaining > 0 && now - b.reportedAt <= ttlMs);
}

/** Observed duration of one job from the samples: busy workers over the completion rate. */
export function observedJobMs(samples: HealthSample[]): number | undefined {
  const ok = samples.filter((s) => s.ok);
  if (ok.length < 2) return undefined;
  const first = ok[0]!;
  const last = ok.at(-1)!;
  const done = last.completed - first.completed;
  const busy = ok.reduce((n, s) => n + s.running, 0) / ok.length;
  if (done <= 0 || busy <= 0 || last.at <= first.at) return undefined;
  return (busy * (last.at - first.at)) / done;
}

/** Workers the load of one sample asks for: per worker, or to drain the queue within the target delay. */
export function loadRecommendation(
  s: HealthSample,
  c: ScalerConfig,
  jobMs: number | undefined,
): { rec: number; why: string } {
  const load = s.inQueue + s.inProgress;
  if (c.targetQueueDelayMs !== undefined && jobMs !== undefined) {
    const rec = s.inProgress + Math.ceil((s.inQueue * jobMs) / c.targetQueueDelayMs);
    return {
      rec,
      why: `${s.inQueue} queued x ${secs(jobMs)} a job within ${secs(c.targetQueueDelayMs)} + ${s.inProgress} in progress`,
    };
  }
  return { rec: Math.ceil(load / c.targetPerWorker), why: `${load} jobs / ${c.targetPerWorker} per worker` };
}

/** Workers the batches' backlogs ask for to finish by their deadlines. */
export function backlogRecommendation(
  backlogs: Backlog[],
  c: ScalerConfig,
  now: number,
  cap: number,
): { rec: number; why: string[] } {
  let rec = 0;
  const why: string[] = [];
  for (const b of backlogs) {
    // Workers beyond the jobs a batch keeps in flight would sit idle.
    const window = (n: number): number => Math.min(n, b.concurrency ?? Infinity);
    const windowed = (n: number): string =>
      b.concurrency !== undefined && n > b.concurrency ? `${b.concurrency} (its window)` : `${n}`;
    if (b.deadline === undefined || b.jobMs === undefined) {
      const need = Math.ceil(b.remaining / c.targetPerWorker);
      rec += window(need);
      why.push(
        `backlog ${b.source}: ${b.remaining} jobs, ${b.deadline === undefined ? 'no deadline' : 'job time unknown yet'}: ${windowed(need)}`,
      );
      continue;
    }
    const left = b.deadline - now;
    const need = left <= 0 ? cap : Math.ceil((b.remaining * b.jobMs) / left);
    rec += window(need);
    why.push(
      left <= 0
        ? `backlog ${b.source}: deadline passed with ${b.remaining} jobs left: all allowed (${windowed(cap)})`
        : `backlog ${b.source}: ${b.remaining} jobs x ${secs(b.jobMs)} in ${secs(left)}: ${windowed(need)}${window(need) > cap ? ` (deadline cannot be met within ${cap})` : ''}`,
    );
  }
  return { rec, why };
}

/** What the load and the limits ask for this tick, with the words that explain it so far. */
export interface Demand {
  /** The schedule window in force, if any. */
  win: ScaleWindow | undefined;
  /** The floor and ceiling in force (the window's, else the config's). */
  lo: number;
  hi: number;
  price: number | undefined;
  /** Workers the spend cap allows (Infinity without one). */
  spendMax: number;
  /** The ceiling and the spend cap together. */
  cap: number;
  /** The raw recommendation: load or backlogs, whichever asks more. */
  rec: number;
  /** Jobs queued, in progress and in the live backlogs. */
  load: number;
  lastLoadAt: number | undefined;
  why: string[];
}

/** The recommendation: load, or the batches' backlogs, whichever asks more; and the limits in force. */
export function demandOf(i: PolicyInput, last: HealthSample): Demand {
  const { now, config: c, memory: m } = i;
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
  return { win, lo, hi, price, spendMax, cap, rec, load, lastLoadAt, why };
}
