/**
 * What the orchestrator's I/O reports (service calls, finished remote jobs): an interface, so the
 * activities, the outcome record (results/outcome.ts) and the webhook receiver count without
 * depending on Prometheus; the daemon backs it with counters (worker/metrics.ts). Here, in the
 * lowest layer, because the results layer counts too.
 */
export interface ActivityMetrics {
  /** One HTTP call to the service, by operation, with its outcome (`ok` or an error code). */
  httpCall(operation: string, outcome: string): void;
  /** A remote job finished (seen by the orchestrator). */
  remoteJobFinished(status: string, via: string): void;
}

export const noopMetrics: ActivityMetrics = { httpCall: () => {}, remoteJobFinished: () => {} };
