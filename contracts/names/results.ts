/**
 * Where each record lives in the results store (journals, big outputs, stream chunks), defined
 * once for the activities that write and the clients that read. Zod-free.
 */

/** Folder of one workflow's records: the id made safe as a single path segment. */
export const workflowKey = (workflowId: string): string => encodeURIComponent(workflowId);

/** Prefix of the stream chunk files of a workflow (one file per remote run). */
export const streamPrefix = (workflowId: string): string => `${workflowKey(workflowId)}/stream-`;

/** Key of the chunks of one stream drain. */
export const streamKey = (workflowId: string, remoteJobId: string, retries: number): string =>
  `${streamPrefix(workflowId)}${encodeURIComponent(remoteJobId)}-${retries}.jsonl`;

/** Key of a remote job's output that was too big for history. */
export const outputKey = (workflowId: string, remoteJobId: string, retries: number): string =>
  `${workflowKey(workflowId)}/output-${encodeURIComponent(remoteJobId)}-${retries}.json`;

/** Key of the journal of a submission (attempt `attempt` of a workflow). */
export const submitJournalKey = (workflowId: string, attempt: number): string => `${workflowKey(workflowId)}/submit-${attempt}.json`;
