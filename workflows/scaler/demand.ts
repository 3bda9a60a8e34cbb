/**
 * What the load asks of the scaler, before any limit: workers for the last health sample (per worker,
 * or to drain the queue within the target delay) and for the batches' backlogs (to meet their
 * deadlines), with the words that explain them. Pure: part of the policy (scaling-policy.ts).
 */
import type { Backlog, HealthSample, ScaleWindow, ScalerConfig } from '../../contracts/scaler';

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
