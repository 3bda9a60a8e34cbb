/**
 * The defaults of the batch options that `sluice batch start --help` shows, zod-free: the schemas
 * (./batch.ts, ./job.ts) default to them, and the CLI's definitions read them without loading zod
 * and the schemas (issue 23: `sluice batch list` and `status` load only what they use).
 */

export const BATCH_DEFAULTS = {
  /** Jobs in flight at most. */
  concurrency: 50,
  /** Priority among batches sharing an endpoint's submission budget (0-9, higher first). */
  priority: 5,
  /** How lines are read: `{"input": ...}` (body), the input itself (bare), or either (auto). */
  inputFormat: 'auto',
} as const;

/** Of a job's retry: attempts in all, the first included. */
export const RETRY_DEFAULTS = { maxAttempts: 3 } as const;
