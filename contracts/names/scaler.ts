/**
 * Names of the scaler orchestration (one scaler workflow per endpoint), defined once for the
 * workflow, its activities, the daemon and the clients: workflow ids, query, updates, signal,
 * decision kinds, failure types, patch ids. Zod-free: workflows import it at run time.
 */

/** Workflow id of an endpoint's scaler: `scaler/<endpointId>` (one per endpoint). */
export const scalerWorkflowId = (endpointId: string): string =>
  endpointId.startsWith('scaler/') ? endpointId : `scaler/${endpointId}`;

/** The endpoint id inside a scaler workflow id. */
export const endpointIdOfScaler = (workflowId: string): string => workflowId.replace(/^scaler\//, '');

/**
 * Id of one scale schedule of an endpoint (a Temporal Schedule): `scale/<endpointId>/<name>`; an
 * endpoint may have several (say, up at 08:00 and down at 20:00).
 */
export const scaleScheduleId = (endpointId: string, name: string): string => `scale/${endpointId}/${name}`;
/** The endpoint and the name inside a scale schedule id; undefined for any other schedule. */
export function scaleScheduleOf(scheduleId: string): { endpointId: string; name: string } | undefined {
  const head = scaleScheduleId('', '').slice(0, -1);
  if (!scheduleId.startsWith(head)) return undefined;
  const rest = scheduleId.slice(head.length);
  const cut = rest.lastIndexOf('/');
  return cut > 0 && cut < rest.length - 1 ? { endpointId: rest.slice(0, cut), name: rest.slice(cut + 1) } : undefined;
}
/** Id of the workflow a scale schedule starts when it fires (Temporal appends the fire time). */
export const scaleWindowWorkflowId = (scheduleId: string): string => `scale-window/${scheduleId}`;

/** The scaler's query, updates and signal, defined once. */
export const SCALER_QUERIES = { state: 'scalerState' } as const;
export const SCALER_UPDATES = {
  override: 'overrideBounds',
  clearOverride: 'clearOverride',
  pause: 'pauseScaler',
  resume: 'resumeScaler',
  configure: 'configureScaler',
  /** A schedule (or a person) changes the floor and ceiling for a while. */
  setWindow: 'setScaleWindow',
  /** A batch reports its remaining work (update: the caller learns the scaler took it). */
  backlog: 'reportBacklog',
} as const;
/** The same backlog report as a signal (fire and forget, e.g. from another workflow). */
export const SCALER_SIGNALS = { backlog: 'backlogReport' } as const;

/** What a decision of the scaler was (the status shows it with its reason in words). */
export const DECISION_KINDS = [
  'hold',
  'scale-up',
  'scale-down',
  'activate',
  'deactivate',
  'override',
  'paused',
  'fallback',
  'drift-reassert',
  'drift-adopt',
  'start',
  'restore',
] as const;

/** What the scaler does when someone else changed the bounds: write its own again, or take theirs as the new floor and ceiling. */
export const DRIFT_POLICIES = ['reassert', 'adopt'] as const;

/** What the scaler does after `/health` failed `failureThreshold` times in a row: keep the bounds, or move to fallback bounds. */
export const FALLBACK_MODES = ['freeze', 'bounds'] as const;

/** Failure types of the scaler activities (beside the shared ones in failures.ts). */
export const SCALER_FAILURES = {
  /** The daemon has no GraphQL URL (SLUICE_GRAPHQL_URL): it cannot read or write bounds. Not retryable. */
  notConfigured: 'SCALER_NOT_CONFIGURED',
} as const;

/** `patched()` ids of the scaler workflow's changes, defined once. */
export const SCALER_PATCHES = {
  /** Ticks also pull the backlog of the batches running on the endpoint (the `readBacklog` activity). */
  pullBacklog: 'scaler-pulls-backlog',
} as const;
