/** Names every orchestration shares: the task queue the daemon polls. Zod-free (workflows import it). */

/** The Temporal task queue the daemon polls (`SLUICE_TASK_QUEUE` overrides it). */
export const TASK_QUEUE = 'sluice';

/**
 * Workflow types of sluice's orchestrations, as the clients start them, list queries name them and
 * a user's workflow starts the job, batch and pipeline as children (sluice/workflows): the exported
 * functions' names (a client starts by name, loading no workflow code).
 */
export const WORKFLOW_TYPES = {
  job: 'jobWorkflow',
  batch: 'batchWorkflow',
  pipeline: 'pipelineWorkflow',
  scaler: 'scalerWorkflow',
  /** What a scale schedule starts when it fires. */
  scaleWindow: 'scaleWindowWorkflow',
} as const;

/**
 * Workflow id of a sluice orchestration a user's workflow runs as its child: `<kind>/<parent
 * workflow id>/<key>` (kind `job`, `batch`, `pipeline`), the same on every replay and retry of the parent.
 */
export const childOfWorkflowId = (kind: keyof typeof INPUT_ACTIVITIES, parentId: string, key: string): string =>
  `${kind}/${parentId}/${key}`;

/** Activities every sluice daemon runs for a user's workflow (sluice/workflows): its inputs, parsed and defaulted. */
export const INPUT_ACTIVITIES = {
  job: 'parseJobInput',
  batch: 'parseBatchInput',
  pipeline: 'parsePipelineInput',
} as const;
