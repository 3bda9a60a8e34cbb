/**
 * Names of the job orchestration, defined once for the workflow, its activities, the daemon and
 * the clients: workflow ids, queries, activity ids. Zod-free: workflows import it at run time.
 */

/** Workflow id of a job workflow: `job/<id>`; the id is the caller's or a new UUID. */
export const jobWorkflowId = (id: string): string => (id.startsWith('job/') ? id : `job/${id}`);

/** Names of the job workflow's query, defined once. */
export const JOB_QUERIES = { state: 'state' } as const;

/** Activity id of the webhook wait for `remoteJobId` after `retries` retries: the webhook receiver completes it by this id. */
export const awaitActivityId = (remoteJobId: string, retries: number): string => `await/${remoteJobId}/${retries}`;

/** Activity id of a stream drain (never completed from outside). */
export const drainActivityId = (remoteJobId: string, retries: number): string => `drain/${remoteJobId}/${retries}`;

/**
 * `patched()` ids of the job workflow's changes, defined once (see docs/orchestrator.md,
 * "Changing the workflow safely").
 */
export const JOB_PATCHES = {
  /** A job that does not complete fails its workflow (JOB_FAILED, ...) instead of returning status FAILED. */
  failedJobFailsWorkflow: 'failed-job-fails-workflow',
} as const;

/** A retained result may still be retried with `/retry` if at least this much retention is left. */
export const RETENTION_MARGIN_MS = 60_000;
