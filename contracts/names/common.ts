/** Names every orchestration shares: the task queue the daemon polls. Zod-free (workflows import it). */

/** The Temporal task queue the daemon polls (`SLUICE_TASK_QUEUE` overrides it). */
export const TASK_QUEUE = 'sluice';
