/**
 * The activity of a firing scale schedule: set a running scaler's floor/ceiling window (its
 * `setScaleWindow` update), or, when no scaler runs, the endpoint's workersMin/workersMax (GraphQL
 * `saveEndpoint`).
 */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { type ScaleWindow, type ScaleWindowResult, type ScalerState } from '../../contracts';
import { FailureType, SCALER_UPDATES, SCALER_FAILURES, scalerWorkflowId } from '../../contracts/names';
import { type GraphqlClient, isPlatformApiError } from '../../platform-api';
import { fatal, toFailure } from '../errors';

/** What the scale-window activity needs; injected by the daemon (and by tests). */
export interface ScaleWindowActivityDeps {
  /** Reaches the endpoint's scaler workflow. */
  client: Pick<Client, 'workflow'>;
  /** Writes the bounds when no scaler runs; without it that fails with SCALER_NOT_CONFIGURED. */
  graphql?: Pick<GraphqlClient, 'saveEndpoint'>;
}

/** One firing: the bounds, the window's end (epoch ms, when the schedule gives a length) and the schedule's id. */
export interface ScaleWindowRequest {
  endpointId: string;
  min: number;
  max: number;
  until?: number;
  source: string;
}

export function createScaleWindowActivities(deps: ScaleWindowActivityDeps) {
  /** True while the endpoint's scaler runs (a stopped, failed or missing one: false). */
  const scalerRuns = async (endpointId: string): Promise<boolean> => {
    try {
      return (await deps.client.workflow.getHandle(scalerWorkflowId(endpointId)).describe()).status.name === 'RUNNING';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  };

  const saveBounds = async (req: ScaleWindowRequest): Promise<ScaleWindowResult> => {
    if (!deps.graphql) {
      throw ApplicationFailure.create({
        type: SCALER_FAILURES.notConfigured,
        nonRetryable: true,
        message: 'the daemon has no GraphQL URL (SLUICE_GRAPHQL_URL): a schedule cannot write workersMin/workersMax',
      });
    }
    try {
      const e = await deps.graphql.saveEndpoint({ id: req.endpointId, workersMin: req.min, workersMax: req.max });
      return { applied: 'bounds', endpointId: req.endpointId, workersMin: e.workersMin, workersMax: e.workersMax };
    } catch (err) {
      if (isPlatformApiError(err, 'NOT_FOUND'))
        throw fatal(FailureType.ENDPOINT_NOT_FOUND, `endpoint ${req.endpointId} not found`, {
          endpointId: req.endpointId,
        });
      throw toFailure(err);
    }
  };

  return {
    /** setWindow on a running scaler (answers once a tick applied it), else saveEndpoint. */
    async applyScaleWindow(req: ScaleWindowRequest): Promise<ScaleWindowResult> {
      if (await scalerRuns(req.endpointId)) {
        const window: ScaleWindow = {
          floor: req.min,
          ceiling: req.max,
          source: req.source,
          ...(req.until !== undefined ? { until: req.until } : {}),
        };
        try {
          const s = await deps.client.workflow
            .getHandle(scalerWorkflowId(req.endpointId))
            .executeUpdate<ScalerState, [ScaleWindow]>(SCALER_UPDATES.setWindow, { args: [window] });
          return {
            applied: 'window',
            endpointId: req.endpointId,
            ...(s.bounds ? { workersMin: s.bounds.workersMin, workersMax: s.bounds.workersMax } : {}),
            ...(req.until !== undefined ? { until: req.until } : {}),
          };
        } catch (err) {
          // The scaler ended meanwhile (stopped: it restored its bounds): the bounds are set directly.
          if (await scalerRuns(req.endpointId)) throw toFailure(err);
        }
      }
      return saveBounds(req);
    },
  };
}

export type ScaleWindowActivities = ReturnType<typeof createScaleWindowActivities>;
