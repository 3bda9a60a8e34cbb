/**
 * Where each record lives in the results store (journals, big outputs, stream chunks), defined
 * once for the activities that write and the clients that read. Every record belongs to one run
 * of its workflow id, so a reused id never reads another run's records. Zod-free.
 */

/** One run of a workflow id: `runId` is the first run id of its chain (stable across continue-as-new). */
export interface RunScope {
  workflowId: string;
  runId: string;
}

/** Folder of one run's records: the workflow id made safe as a single path segment, then the run. */
export const runKey = (run: RunScope): string => `${encodeURIComponent(run.workflowId)}/${run.runId}`;

/** Prefix of the stream chunk files of a run (one file per remote run of the job). */
export const streamPrefix = (run: RunScope): string => `${runKey(run)}/stream-`;

/** Key of the chunks of one stream drain. */
export const streamKey = (run: RunScope, remoteJobId: string, retries: number): string =>
  `${streamPrefix(run)}${encodeURIComponent(remoteJobId)}-${retries}.jsonl`;

/** Key of a remote job's output that was too big for history. */
export const outputKey = (run: RunScope, remoteJobId: string, retries: number): string =>
  `${runKey(run)}/output-${encodeURIComponent(remoteJobId)}-${retries}.json`;

/** Key of the journal of a submission (attempt `attempt` of a run). */
export const submitJournalKey = (run: RunScope, attempt: number): string => `${runKey(run)}/submit-${attempt}.json`;

/** A batch's records in the results store: journals, completion and outcome segments, all per run. */
export const batchKeys = {
  /** Journal of one step's submissions (appended as they happen). */
  submitJournal: (run: RunScope, seq: number): string => `${runKey(run)}/steps/submit-${seq}.jsonl`,
  /** Finished remote jobs collected by one step, full records with outputs. */
  completions: (run: RunScope, seq: number): string => `${runKey(run)}/steps/completions-${seq}.jsonl`,
  /** Final outcomes decided before one step, one line per input index. */
  outcomes: (run: RunScope, seq: number): string => `${runKey(run)}/outcomes/${String(seq).padStart(9, '0')}.jsonl`,
  /** Folder of the outcome segments (merged into results.jsonl when the batch ends). */
  outcomesPrefix: (run: RunScope): string => `${runKey(run)}/outcomes/`,
  /** The original lines of the inputs that failed, per step (merged into dead-letter.jsonl). */
  deadLetter: (run: RunScope, seq: number): string =>
    `${runKey(run)}/dead-letter/${String(seq).padStart(9, '0')}.jsonl`,
  deadLetterPrefix: (run: RunScope): string => `${runKey(run)}/dead-letter/`,
  /** A retry-failed run's input indices (one per line, ascending): the only lines it reads. */
  subset: (run: RunScope): string => `${runKey(run)}/subset.jsonl`,
  /** Prefix of the run's webhook inbox logs, one log per receiving daemon. */
  inboxPrefix: (run: RunScope): string => `${runKey(run)}/inbox/log-`,
  /** The webhook inbox log that daemon `daemonId` appends the run's finished records to. */
  inboxLog: (run: RunScope, daemonId: string): string =>
    `${runKey(run)}/inbox/log-${encodeURIComponent(daemonId)}.jsonl`,
  /** The kept result of a finished step (a retried step returns it). */
  stepResult: (run: RunScope, seq: number): string => `${runKey(run)}/steps/result-${seq}.json`,
};
