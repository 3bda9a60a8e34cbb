/** The scaler: how many workers an endpoint needs now (REQUEST_COUNT, QUEUE_DELAY). */
import { type Endpoint } from '../../contracts';

/** What the scaler sees of one endpoint. */
export interface ScalerInput {
  endpoint: Pick<Endpoint, 'scalerType' | 'scalerValue' | 'workersMin' | 'workersMax'>;
  /** Queued jobs that may trigger scaling (lowPriority jobs never do). */
  queuedScaling: number;
  /** How long the oldest scaling-eligible queued job has waited. */
  oldestWaitMs: number;
  inProgress: number;
  /** Workers alive or starting (not stopping). */
  live: number;
}

/**
 * The number of workers the endpoint should have now. Scaling down is left to `idleTimeout`;
 * this only says how many are needed.
 *
 * - REQUEST_COUNT: `ceil((inQueue + inProgress) / scalerValue)`.
 * - QUEUE_DELAY: one worker at once when there are none; more (one per waiting job) once the
 *   oldest job has waited longer than `scalerValue` seconds.
 */
export function desiredWorkers(s: ScalerInput): number {
  const { endpoint: e } = s;
  let want: number;
  if (e.scalerType === 'REQUEST_COUNT') {
    want = Math.ceil((s.queuedScaling + s.inProgress) / Math.max(1, e.scalerValue));
  } else if (s.queuedScaling === 0) {
    want = s.inProgress;
  } else if (s.live === 0) {
    want = 1;
  } else {
    want = s.oldestWaitMs > e.scalerValue * 1000 ? s.live + s.queuedScaling : s.live;
  }
  return Math.min(e.workersMax, Math.max(e.workersMin, want));
}
