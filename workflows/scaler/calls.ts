/**
 * The scaler's activity calls: a health sample is one try (the workflow counts failures toward the
 * fallback itself), bounds reads and writes are retried; and one tick's reads of the endpoint
 * (health, bounds, and now and then its batches' backlog) taken together.
 */
import { proxyActivities } from '@temporalio/workflow';
import { FailureType, NON_RETRYABLE, SCALER_FAILURES } from '../../contracts/names';
import type { Bounds, HealthSample } from '../../contracts';
import type { EndpointBacklog, ScalerActivities } from '../../activities/scaler/activities';
import { errorOf, typeOf } from './errors';

const NOT_RETRIED = [...NON_RETRYABLE, SCALER_FAILURES.notConfigured];
// A sample is one try: the workflow counts failures toward the fallback itself.
export const probe = proxyActivities<ScalerActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { maximumAttempts: 1 },
});
export const control = proxyActivities<ScalerActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '10s',
    maximumAttempts: 5,
    nonRetryableErrorTypes: NOT_RETRIED,
  },
});

/** What one tick read: its time, the health sample (`ok: false` with why), the bounds and price when read, the backlog when pulled. */
export interface EndpointReads {
  now: number;
  sample: HealthSample;
  bounds?: Bounds;
  pricePerHour?: number;
  pulled?: EndpointBacklog;
}

/**
 * Reads the endpoint's health and bounds, and with `scanMs` the backlog of its batches (no older
 * than half of it), at once. A failed read is in the sample; an endpoint that no longer exists throws.
 */
export async function readEndpoint(endpointId: string, scanMs: number | undefined): Promise<EndpointReads> {
  const [h, rb, pb] = await Promise.allSettled([
    probe.readHealth(endpointId),
    control.readBounds(endpointId),
    scanMs !== undefined ? probe.readBacklog({ endpointId, maxAgeMs: Math.floor(scanMs / 2) }) : undefined,
  ]);
  const now = Date.now();
  if (rb.status === 'rejected' && typeOf(rb.reason) === FailureType.ENDPOINT_NOT_FOUND) throw rb.reason;
  const failed =
    h.status === 'rejected'
      ? `health: ${errorOf(h.reason)}`
      : rb.status === 'rejected'
        ? `bounds: ${errorOf(rb.reason)}`
        : undefined;
  const counts =
    h.status === 'fulfilled'
      ? h.value
      : { inQueue: 0, inProgress: 0, running: 0, idle: 0, initializing: 0, completed: 0 };
  return {
    now,
    sample: { at: now, ok: failed === undefined, ...counts, ...(failed ? { error: failed } : {}) },
    ...(rb.status === 'fulfilled'
      ? { bounds: { workersMin: rb.value.workersMin, workersMax: rb.value.workersMax } }
      : {}),
    ...(rb.status === 'fulfilled' && rb.value.pricePerHour !== undefined
      ? { pricePerHour: rb.value.pricePerHour }
      : {}),
    ...(pb.status === 'fulfilled' && pb.value ? { pulled: pb.value } : {}),
  };
}
