/** What activities report; the daemon backs it with Prometheus counters. */
export interface ActivityMetrics {
  /** One HTTP call to the service, by operation, with its outcome (`ok` or an error code). */
  httpCall(operation: string, outcome: string): void;
  /** A remote job finished (seen by the orchestrator). */
  remoteJobFinished(status: string, via: string): void;
}

export const noopMetrics: ActivityMetrics = { httpCall: () => {}, remoteJobFinished: () => {} };
