/** One reconcile step of an endpoint's pool: scaling, idle timeout and rolling release. */
import { type Endpoint } from '../../contracts';
import { type Job } from '../jobs/job';
import { isIdle, type WorkerPod } from './pod';
import { desiredWorkers } from './scaler';

/** What the pool sees of one endpoint when it reconciles. */
export interface PlanInput {
  endpoint: Endpoint;
  /** The endpoint's live pods (not stopping, not exited), draining ones included. */
  pods: WorkerPod[];
  /** Its queued jobs, oldest first. */
  queued: Job[];
  now: number;
  /** The last new worker crashed at start: no spawning during the back-off, and a release does not advance. */
  crashing: boolean;
  backoff: boolean;
}

/** What the pool should do now: pods to drain (each with the reason) and how many to start. */
export interface Plan {
  drain: { pod: WorkerPod; why: string }[];
  spawn: number;
}

const isStarting = (p: WorkerPod): boolean => p.phase === 'starting' || p.phase === 'initializing';

/**
 * One reconcile step of an endpoint's worker pool.
 *
 * - Scaling: {@link desiredWorkers} gives the target within workersMin..workersMax; missing
 *   workers are started, workers over workersMax are drained (busy ones finish their job), and
 *   idle workers over the target stop after `idleTimeout`.
 * - Rolling release (pods older than `endpoint.version`): one outdated pod is drained at a time,
 *   and the next only once it is gone and no new-version pod is still starting. Its replacement
 *   comes from the target, so capacity stays while at most one extra (draining) worker exists.
 *   A release whose new workers crash at start stops advancing: the old workers keep serving.
 */
export function planEndpoint(input: PlanInput): Plan {
  const { endpoint: e, pods, queued, now } = input;
  const scaling = queued.filter((j) => !j.policy.lowPriority);
  const inProgress = pods.reduce((n, p) => n + p.jobs.size, 0);
  const active = pods.filter((p) => !p.draining);
  const want = desiredWorkers({
    endpoint: e,
    queuedScaling: scaling.length,
    inProgress,
    live: active.length,
    oldestWaitMs: scaling.length > 0 ? Math.max(0, now - scaling[0]!.queuedAt) : 0,
  });
  const drain: Plan['drain'] = [];

  const outdated = active.filter((p) => p.version < e.version);
  const releaseBusy =
    pods.some((p) => p.draining && p.version < e.version) ||
    active.some((p) => p.version >= e.version && isStarting(p)) ||
    input.crashing;
  if (outdated.length > 0 && !releaseBusy) {
    // Cheapest first: a pod not serving yet, then an idle one, then the least busy.
    const victim =
      outdated.find(isStarting) ?? outdated.find(isIdle) ?? [...outdated].sort((a, b) => a.jobs.size - b.jobs.size)[0]!;
    drain.push({ pod: victim, why: `rolling release to version ${e.version}` });
  }

  const current = active.filter((p) => !drain.some((d) => d.pod === p));
  let spawn = 0;
  if (current.length < want) {
    if (!input.backoff) spawn = want - current.length;
  } else if (current.length > e.workersMax) {
    const extra = [...current].sort((a, b) => a.jobs.size - b.jobs.size).slice(0, current.length - e.workersMax);
    for (const pod of extra) drain.push({ pod, why: 'workersMax lowered' });
  } else {
    let surplus = current.length - Math.max(e.workersMin, want);
    for (const p of current) {
      if (surplus <= 0) break;
      if (isIdle(p) && now - p.idleSince >= e.idleTimeout * 1000) {
        drain.push({ pod: p, why: `idle for ${e.idleTimeout} s` });
        surplus--;
      }
    }
  }
  return { drain, spawn };
}
