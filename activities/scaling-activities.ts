/**
 * The scaler's activities, bound to their dependencies: read an endpoint's `/health`, read its
 * bounds (GraphQL) and the price of its workers (REST `costPerHr`), write its bounds (saveEndpoint).
 */
import { ApplicationFailure } from '@temporalio/common';
import { type Bounds } from '../contracts';
import { FailureType, SCALING_FAILURES } from '../contracts/names';
import { type GraphqlClient, isPlatformApiError, type QueueClient, type RestClient } from '../platform-api';
import { fatal, toFailure } from './errors';
import { noopMetrics, type ActivityMetrics } from './metrics';

/** What the scaling activities need; injected by the daemon (and by tests). */
export interface ScalingActivityDeps {
  queue: Pick<QueueClient, 'health'>;
  /** Reads and writes the bounds; without it the scaler cannot run (SCALER_NOT_CONFIGURED). */
  graphql?: Pick<GraphqlClient, 'listEndpoints' | 'saveEndpoint'>;
  /** Reads a worker's `costPerHr`; without it the price comes from the config or is unknown. */
  rest?: Pick<RestClient, 'getPod'>;
  metrics?: ActivityMetrics;
  /** How long a price read is reused, ms. @default 60000 */
  priceTtlMs?: number;
}

/** `/health` counts as the scaler samples them. */
export interface HealthCounts {
  inQueue: number;
  inProgress: number;
  running: number;
  idle: number;
  initializing: number;
  completed: number;
}

/** What `readBounds` finds: the bounds, the live workers and (when known) the price of one worker-hour. */
export interface EndpointBounds extends Bounds {
  workers: number;
  pricePerHour?: number;
}

export interface WriteBoundsRequest extends Bounds {
  endpointId: string;
}

const notFound = (endpointId: string) => fatal(FailureType.ENDPOINT_NOT_FOUND, `endpoint ${endpointId} not found`, { endpointId });

export function createScalingActivities(deps: ScalingActivityDeps) {
  const metrics = deps.metrics ?? noopMetrics;
  const prices = new Map<string, { at: number; price: number }>();
  const ttl = deps.priceTtlMs ?? 60_000;
  const graphql = () => {
    if (deps.graphql) return deps.graphql;
    throw ApplicationFailure.create({
      type: SCALING_FAILURES.notConfigured, nonRetryable: true,
      message: 'the daemon has no GraphQL URL (SLUICE_GRAPHQL_URL): the scaler cannot read or write workersMin/workersMax',
    });
  };

  /** The price of one worker of the endpoint, from one of its live pods (cached). */
  async function price(endpointId: string, podIds: string[]): Promise<number | undefined> {
    const cached = prices.get(endpointId);
    if (cached && Date.now() - cached.at < ttl) return cached.price;
    if (!deps.rest || podIds.length === 0) return cached?.price;
    try {
      const pod = await deps.rest.getPod(podIds[0]!);
      prices.set(endpointId, { at: Date.now(), price: pod.costPerHr });
      return pod.costPerHr;
    } catch {
      // The pod may have just stopped: the next read tries another.
      return cached?.price;
    }
  }

  return {
    /** One `/health` sample. A missing endpoint is ENDPOINT_NOT_FOUND; the workflow counts every failure toward its fallback. */
    async readHealth(endpointId: string): Promise<HealthCounts> {
      try {
        const h = await deps.queue.health(endpointId);
        metrics.httpCall('health', 'ok');
        return {
          inQueue: h.jobs.inQueue, inProgress: h.jobs.inProgress, running: h.workers.running, idle: h.workers.idle,
          initializing: h.workers.initializing ?? 0, completed: h.jobs.completed,
        };
      } catch (err) {
        metrics.httpCall('health', isPlatformApiError(err) ? err.code : 'ERROR');
        if (isPlatformApiError(err, 'NOT_FOUND')) throw notFound(endpointId);
        throw toFailure(err);
      }
    },

    /** The endpoint's workersMin/workersMax, its live workers and the price of one worker-hour (REST `costPerHr`). */
    async readBounds(endpointId: string): Promise<EndpointBounds> {
      let list;
      try {
        list = await graphql().listEndpoints();
      } catch (err) {
        throw toFailure(err);
      }
      const e = list.endpoints.find((x) => x.id === endpointId);
      if (!e) throw notFound(endpointId);
      const live = (e.pods ?? []).filter((p) => p.desiredStatus === 'RUNNING').map((p) => p.id);
      const p = await price(endpointId, live);
      return { workersMin: e.workersMin, workersMax: e.workersMax, workers: live.length, ...(p !== undefined ? { pricePerHour: p } : {}) };
    },

    /** Writes the bounds through `saveEndpoint` (scaling fields only: no rolling release). */
    async writeBounds(req: WriteBoundsRequest): Promise<Bounds> {
      try {
        const e = await graphql().saveEndpoint({ id: req.endpointId, workersMin: req.workersMin, workersMax: req.workersMax });
        metrics.httpCall('saveEndpoint', 'ok');
        return { workersMin: e.workersMin, workersMax: e.workersMax };
      } catch (err) {
        if (isPlatformApiError(err, 'NOT_FOUND')) throw notFound(req.endpointId);
        metrics.httpCall('saveEndpoint', isPlatformApiError(err) ? err.code : 'ERROR');
        throw toFailure(err);
      }
    },
  };
}

export type ScalingActivities = ReturnType<typeof createScalingActivities>;
