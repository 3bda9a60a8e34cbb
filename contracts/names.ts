/**
 * Names shared by workflows, the daemon and clients: task queue, workflow ids, queries. No zod
 * here: workflows import this at run time, and every workflow run evaluates what it imports.
 */

/** The Temporal task queue the daemon polls. */
export const TASK_QUEUE = 'sluice';

/** Workflow id of a job workflow: `job/<id>`; the id is the caller's or a new UUID. */
export const jobWorkflowId = (id: string): string => (id.startsWith('job/') ? id : `job/${id}`);

/** Names of the job workflow's query, defined once. */
export const JOB_QUERIES = { state: 'state' } as const;
