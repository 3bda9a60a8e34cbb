/**
 * Names of the batch orchestration, defined once for the workflow, its activities, the daemon and
 * the clients: workflow ids, signals, queries, updates, outcome statuses, idempotency keys. Zod-free.
 */

/** Workflow id of a batch: `batch/<id>`. */
export const batchWorkflowId = (id: string): string => (id.startsWith('batch/') ? id : `batch/${id}`);

/** The batch id inside a batch workflow id. */
export const batchIdOf = (workflowId: string): string => workflowId.replace(/^batch\//, '');

/** Workflow id of the child job workflow of input `index` (the `--per-job-workflows` mode). */
export const batchChildId = (batchId: string, index: number): string => `batch/${batchIdOf(batchId)}/${index}`;

/** The batch workflow's query, signals and updates, defined once. */
export const BATCH_QUERIES = { state: 'batchState' } as const;
export const BATCH_UPDATES = {
  pause: 'pause',
  resume: 'resume',
  cancel: 'cancelBatch',
  configure: 'configure',
} as const;

/** The batch workflow's signals: `feed` tells a batch whose source is an open feed how far it goes. */
export const BATCH_SIGNALS = { feed: 'batchFeed' } as const;

/**
 * What one input ended as, beside the remote job statuses: a line that is no job (`BAD_INPUT`), a
 * job the service forgot (`JOB_EXPIRED`), an input never sent because the batch stopped submitting
 * (`NOT_SUBMITTED`: cancelled, cost cap or deadline; the reason says which).
 */
export const BATCH_OUTCOMES = [
  'COMPLETED',
  'FAILED',
  'TIMED_OUT',
  'CANCELLED',
  'JOB_EXPIRED',
  'BAD_INPUT',
  'NOT_SUBMITTED',
] as const;

/**
 * What retry-failed re-runs: inputs that ended FAILED, TIMED_OUT or JOB_EXPIRED; with
 * `includeCancelled` also CANCELLED and NOT_SUBMITTED. BAD_INPUT never (the line itself is wrong).
 */
export const RETRIED_OUTCOMES = ['FAILED', 'TIMED_OUT', 'JOB_EXPIRED'] as const;
export const RETRIED_IF_CANCELLED = ['CANCELLED', 'NOT_SUBMITTED'] as const;

/**
 * Why a batch is not submitting right now (the status says it). `rate-budget`: the endpoint's shared
 * submission budget held its last step; `priority`: it yields to a higher-priority batch on the endpoint;
 * `no-webhooks`: webhooks stopped reaching the daemon (check `SLUICE_PUBLIC_URL`), its jobs are polled;
 * `feed`: an open source (a pipeline's stage) is read to its end and waits for more.
 */
export const WAIT_REASONS = [
  'window-full',
  'key-cap',
  'rate-budget',
  'priority',
  'paused',
  'cost-cap',
  'deadline',
  'retry-backoff',
  'input-done',
  'no-webhooks',
  'feed',
] as const;

/**
 * The `Idempotency-Key` of one submission: the same (workflow run, input index, attempt) always
 * gives the same key, so a repeated submission answers the first job instead of creating another.
 */
export const idempotencyKey = (scope: string, index: number, attempt: number): string => `${scope}#${index}#${attempt}`;

/**
 * `patched()` ids of the batch workflow's changes, defined once (see docs/orchestrator.md,
 * "Changing the workflow safely").
 */
export const BATCH_PATCHES = {
  /** A step may end before its slow submissions answer; the ledger holds them as *submitting*. */
  detachedSubmissions: 'batch-detached-submissions',
  /** An open feed's batch refills its window from the feed within a step, also when caught up with it. */
  feedRefill: 'batch-feed-refill',
  /**
   * A closed feed whose rows left may not be submitted (a pipeline's stop, a deadline, a cost cap)
   * ends the batch, its rows NOT_SUBMITTED, as a file does; before, the batch waited for the feed.
   */
  closedFeedStops: 'batch-closed-feed-stops',
  /**
   * A completion of an earlier run of a retried job (a late or duplicated webhook) is not the retry's
   * outcome (workflows/batch/completion-match.ts); before, a completion whose run count differed matched its id.
   */
  staleCompletions: 'batch-stale-completions',
  /** A due retry the window has no room for stops the steps' refill until it has (workflows/batch/plan.ts). */
  retriesFirst: 'batch-retries-first',
  /**
   * The last outcomes are written by the finish (`finishBatch`'s `write`), not by a step of their own
   * before it: one activity and one workflow task fewer after the last completion (issue 23).
   */
  finishWrites: 'batch-finish-writes',
  /**
   * A file's batch (not a feed, not a retry-failed run) is opened by its first step (`open`: the input
   * and endpoint checks, the count, the price), not by an `openBatch` activity of its own before it: a
   * workflow task and an activity fewer before the first submission (issue 23).
   */
  openInStep: 'batch-open-in-step',
  /**
   * A small batch's finish (`workflows/batch/finish.ts`, LOCAL_FINISH_MAX_INPUTS) is a local activity
   * in the workflow task that then closes the batch, not an activity with a workflow task of its own
   * after it (issue 23).
   */
  finishLocal: 'batch-finish-local',
} as const;
