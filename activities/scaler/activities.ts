/**
 * The scaler's activities, bound to their dependencies: read an endpoint's `/health`, read its
 * bounds (GraphQL) and the price of its workers (REST `costPerHr`, the daemon's shared lookup),
 * write its bounds (saveEndpoint), and pull the backlog of the batches running on it (Temporal).
 */
import { ApplicationFailure } from '@temporalio/common';
import { type Bounds } from '../../contracts';
import { FailureType, SCALER_FAILURES } from '../../contracts/names';
import { type GraphqlClient, isPlatformApiError, type QueueClient } from '../../platform-api';
import { fatal, toFailure } from '../errors';
import { noopMetrics, type ActivityMetrics } from '../../common/metrics';
import { type BacklogScan, type PulledBacklog } from './backlog';

/** What the scaler activities need; injected by the daemon (and by tests). */
export interface ScalerActivityDeps {
  queue: Pick<QueueClient, 'health'>;
  /** Reads and writes the bounds; without it the scaler cannot run (SCALER_NOT_CONFIGURED). */
  graphql?: Pick<GraphqlClient, 'listEndpoints' | 'saveEndpoint'>;
  /** The price of one worker-hour of an endpoint (`endpointPrice`: its workers' `costPerHr` over REST); without it the config's or none. */
  price?: (endpointId: string) => Promise<number | undefined>;
  metrics?: ActivityMetrics;
  /** Scans the batches running on Temporal (`backlogScanner` over the daemon's client); without it no backlog is pulled. */
  backlogs?: (maxAgeMs: number) => Promise<BacklogScan>;
}

/** What `readBacklog` finds for one endpoint: the running batches on it, and how the scan went. */
export interface EndpointBacklog {
  at: number;
  batches: PulledBacklog[];
  listed: number;
  failed: number;
  truncated: boolean;
}

export interface ReadBacklogRequest {
  endpointId: string;
  /** A scan at most this old (shared with the daemon's other scalers) will do, ms. */
  maxAgeMs: number;
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

/** The GraphQL URL of a queue base: given, the cloud's for api.runpod.ai, else the same host's `/graphql`. */
export function graphqlUrlFor(queueUrl: string, graphqlUrl?: string): string {
  if (graphqlUrl) return graphqlUrl;
  const u = new URL(queueUrl);
  if (u.hostname === 'api.runpod.ai') return 'https://api.runpod.io/graphql';
  return `${u.origin}${u.pathname.replace(/\/v2\/?$/, '')}/graphql`;
}

const notFound = (endpointId: string) =>
  fatal(FailureType.ENDPOINT_NOT_FOUND, `endpoint ${endpointId} not found`, { endpointId });

/** The dependencies with the defaults filled in. */
type Deps = ScalerActivityDeps & { metrics: ActivityMetrics };

export function createScalerActivities(deps: ScalerActivityDeps) {
  const d: Deps = { ...deps, metrics: deps.metrics ?? noopMetrics };
  // The keys are the activity names (recorded in history).
  return {
    readHealth: (endpointId: string) => readHealth(d, endpointId),
    readBounds: (endpointId: string) => readBounds(d, endpointId),
    readBacklog: (req: ReadBacklogRequest) => readBacklog(d, req),
    writeBounds: (req: WriteBoundsRequest) => writeBounds(d, req),
  };
}

/** The GraphQL client; without one, the scaler cannot run (SCALER_NOT_CONFIGURED, not retryable). */
function graphqlOf(d: Deps): NonNullable<ScalerActivityDeps['graphql']> {
  if (d.graphql) return d.graphql;
  throw ApplicationFailure.create({
    type: SCALER_FAILURES.notConfigured,
    nonRetryable: true,
    message:
      'the daemon has no GraphQL URL (SLUICE_GRAPHQL_URL): the scaler cannot read or write workersMin/workersMax',
  });
}

/** One `/health` sample. A missing endpoint is ENDPOINT_NOT_FOUND; the workflow counts every failure toward its fallback. */
async function readHealth(d: Deps, endpointId: string): Promise<HealthCounts> {
  try {
    const h = await d.queue.health(endpointId);
    d.metrics.httpCall('health', 'ok');
    return {
      inQueue: h.jobs.inQueue,
      inProgress: h.jobs.inProgress,
      running: h.workers.running,
      idle: h.workers.idle,
      initializing: h.workers.initializing ?? 0,
      completed: h.jobs.completed,
    };
  } catch (err) {
    d.metrics.httpCall('health', isPlatformApiError(err) ? err.code : 'ERROR');
    if (isPlatformApiError(err, 'NOT_FOUND')) throw notFound(endpointId);
    throw toFailure(err);
  }
}

/** The endpoint's workersMin/workersMax, its live workers and the price of one worker-hour (when a worker runs). */
async function readBounds(d: Deps, endpointId: string): Promise<EndpointBounds> {
  let list;
  try {
    list = await graphqlOf(d).listEndpoints();
  } catch (err) {
    throw toFailure(err);
  }
  const e = list.endpoints.find((x) => x.id === endpointId);
  if (!e) throw notFound(endpointId);
  const live = (e.pods ?? []).filter((p) => p.desiredStatus === 'RUNNING').length;
  // No worker runs: no price to read (the workflow keeps the last one known).
  const p = live > 0 ? await d.price?.(endpointId).catch(() => undefined) : undefined;
  return {
    workersMin: e.workersMin,
    workersMax: e.workersMax,
    workers: live,
    ...(p !== undefined ? { pricePerHour: p } : {}),
  };
}

/** The backlog of the batches running on the endpoint (none when the daemon has no scanner). */
async function readBacklog(d: Deps, req: ReadBacklogRequest): Promise<EndpointBacklog> {
  if (!d.backlogs) return { at: Date.now(), batches: [], listed: 0, failed: 0, truncated: false };
  try {
    const s = await d.backlogs(req.maxAgeMs);
    return {
      at: s.at,
      batches: s.batches.filter((b) => b.endpointId === req.endpointId),
      listed: s.listed,
      failed: s.failed,
      truncated: s.truncated,
    };
  } catch (err) {
    throw toFailure(err);
  }
}

/** Writes the bounds through `saveEndpoint` (scaling fields only: no rolling release). */
async function writeBounds(d: Deps, req: WriteBoundsRequest): Promise<Bounds> {
  try {
    const e = await graphqlOf(d).saveEndpoint({
      id: req.endpointId,
      workersMin: req.workersMin,
      workersMax: req.workersMax,
    });
    d.metrics.httpCall('saveEndpoint', 'ok');
    return { workersMin: e.workersMin, workersMax: e.workersMax };
  } catch (err) {
    if (isPlatformApiError(err, 'NOT_FOUND')) throw notFound(req.endpointId);
    d.metrics.httpCall('saveEndpoint', isPlatformApiError(err) ? err.code : 'ERROR');
    throw toFailure(err);
  }
}

export type ScalerActivities = ReturnType<typeof createScalerActivities>;
