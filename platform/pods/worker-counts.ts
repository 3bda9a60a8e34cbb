/** Counts of an endpoint's workers: the `/health` workers block and the dynamic rate limit's running workers. */
import { isIdle, isLive, isRunning, type WorkerPod } from './pod';

/** The `/health` workers block. */
export interface WorkerCounts {
  idle: number;
  running: number;
  initializing: number;
  ready: number;
  throttled: number;
  unhealthy: number;
}

/** Live workers past their cold start (for the dynamic rate limit). */
export function runningWorkers(pods: readonly WorkerPod[]): number {
  return pods.filter((p) => isLive(p) && p.phase !== 'starting').length;
}

/** The `/health` workers block of one endpoint's pods. */
export function workerCounts(pods: readonly WorkerPod[]): WorkerCounts {
  const live = pods.filter(isLive);
  const idle = live.filter(isIdle).length;
  return {
    idle,
    running: live.filter(isRunning).length,
    initializing: live.filter((p) => p.phase === 'starting' || p.phase === 'initializing').length,
    ready: idle,
    throttled: 0,
    unhealthy: live.filter((p) => p.unhealthy).length,
  };
}
