/**
 * What a scale schedule starts when it fires: one activity sets the endpoint's floor/ceiling window
 * on its running scaler, or its workersMin/workersMax when no scaler runs.
 */
import { proxyActivities } from '@temporalio/workflow';
import { NON_RETRYABLE, SCALER_FAILURES } from '../../contracts/names';
import type { ScaleWindowInput, ScaleWindowResult } from '../../contracts';
import type { ScaleWindowActivities } from '../../activities/scaler/window';

const act = proxyActivities<ScaleWindowActivities>({
  // The scaler answers the update once a tick applied the window (a tick is a few calls).
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '15s',
    maximumAttempts: 6,
    nonRetryableErrorTypes: [...NON_RETRYABLE, SCALER_FAILURES.notConfigured],
  },
});

/** Applies one firing of a scale schedule; a window with a length ends `forMs` after the firing. */
export async function scaleWindowWorkflow(input: ScaleWindowInput): Promise<ScaleWindowResult> {
  const { endpointId, min, max, source, forMs } = input;
  return act.applyScaleWindow({ endpointId, min, max, source, ...(forMs ? { until: Date.now() + forMs } : {}) });
}
