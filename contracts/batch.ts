import { z } from 'zod';
import { BATCH_DEFAULTS } from './defaults';
import { InputFormat } from './input-line';
import { JobRetryOptions, PollingOptions } from './job';
import { BATCH_OUTCOMES, WAIT_REASONS } from './names/batch';
import { Policy } from './queue';

/**
 * Wire shapes of the batch orchestration: the workflow's input, its live state (query), the
 * result line of one input and the summary. Per-item data never crosses the Temporal boundary:
 * inputs are read and outcomes written by activities; history holds indices, ids and counters.
 */

export { InputFormat } from './input-line';

/** Options of one batch; every field has a documented default. */
export const BatchOptions = z.strictObject({
  /**
   * Jobs in flight at most (submitted, not yet finished).
   * @default 50
   */
  concurrency: z.number().int().min(1).max(5000).default(BATCH_DEFAULTS.concurrency),
  /** A JSON path into each input (`$.tenant`, `$.user.id`): each value of it gets its own in-flight cap. */
  keyPath: z
    .string()
    .regex(/^\$(\.[A-Za-z_][\w-]*|\[\d+\])+$/, { error: 'keyPath must look like $.field or $.a.b[0]' })
    .optional(),
  /** In-flight cap per key value (needs `keyPath`). */
  keyLimit: z.number().int().min(1).optional(),
  /**
   * Priority among batches sharing an endpoint's submission budget: higher goes first.
   * @default 5
   */
  priority: z.number().int().min(0).max(9).default(BATCH_DEFAULTS.priority),
  /** Stop submitting once the estimated spend (USD) reaches this. */
  maxCost: z.number().positive().optional(),
  /** Stop submitting at this time (epoch ms). */
  deadline: z.number().int().positive().optional(),
  /** Price of one worker-hour (USD) for the estimate; default: the endpoint's worker `costPerHr` read over REST. */
  pricePerHour: z.number().min(0).optional(),
  /** Retry of FAILED / TIMED_OUT jobs: the job workflow's options. */
  retry: JobRetryOptions.default(JobRetryOptions.parse({})),
  /**
   * `webhook` (with a `/status` poll for jobs whose webhook is late) or `poll`.
   * @default 'webhook'
   */
  completion: z.enum(['webhook', 'poll']).default('webhook'),
  polling: PollingOptions.default(PollingOptions.parse({})),
  /**
   * A job whose webhook has not come after this long is polled (then at doubling intervals up to 5 min).
   * @default 30000
   */
  webhookFallbackMs: z.number().int().min(100).max(3_600_000).default(30_000),
  /** Lines of the file: `auto`, `body` (`{"input": ...}`), `bare` (the input itself). @default 'auto' */
  inputFormat: InputFormat.default(BATCH_DEFAULTS.inputFormat),
  /** Policy of bare inputs (a body line brings its own). */
  policy: Policy.optional(),
  /**
   * Result retention the service applies after a job finishes (`/retry` only before it ends).
   * @default 1800000
   */
  resultRetentionMs: z
    .number()
    .int()
    .min(0)
    .default(30 * 60_000),
  /**
   * Continue-as-new after this many steps even before Temporal suggests it (tests lower it).
   * @default 500
   */
  stepsPerRun: z.number().int().min(2).max(100_000).default(500),
  /**
   * The per-job mode (`sluice batch start --per-job`): run each input as its own child job workflow
   * (`batch/<id>/<index>`), for batches up to ~10,000. The field keeps its name `perJobWorkflows`: it
   * is a workflow input field recorded in Temporal history.
   * @default false
   */
  perJobWorkflows: z.boolean().default(false),
  /**
   * `perJobWorkflows`: continue-as-new after this many child workflows (the window is drained
   * first; Temporal's own suggestion also triggers it; tests lower it).
   * @default 1000
   */
  childrenPerRun: z.number().int().min(2).max(2000).default(1000),
});
export type BatchOptions = z.infer<typeof BatchOptions>;
export type BatchOptionsInput = z.input<typeof BatchOptions>;

/** Input of the batch workflow. */
export const BatchWorkflowInput = z.strictObject({
  endpointId: z.string().min(1),
  /** The JSONL input: a path the daemon can read. */
  source: z.string().min(1),
  /** Where results.jsonl, dead-letter.jsonl and summary.json go (a directory the daemon can write). */
  outDir: z.string().min(1),
  /**
   * Set when this run re-runs the failed inputs of an ended run of the same batch (a rerun,
   * `sluice batch rerun`; the field keeps its name `retryOf`, recorded in Temporal history):
   * an activity selects them from that run's results; indices never enter history.
   */
  retryOf: z
    .strictObject({
      /** The retried run: the first run id of its chain (continue-as-new keeps it). */
      runId: z.string().min(1),
      /** This run's attempt of the batch: 2 for the first retry-failed. */
      attempt: z.number().int().min(2),
      /**
       * Also re-run inputs that ended CANCELLED or NOT_SUBMITTED (FAILED, TIMED_OUT and JOB_EXPIRED always are).
       * @default false
       */
      includeCancelled: z.boolean().default(false),
    })
    .optional(),
  /**
   * The source is an open feed (a folder of segments ending with `/`, results/batch/feed.ts) that
   * may still grow: the batch reads what the `batchFeed` signal says is there, and ends only once
   * it says the feed is closed and every line of it has its outcome (a pipeline's stage).
   * @default false
   */
  feed: z.boolean().optional(),
  options: BatchOptions.default(BatchOptions.parse({})),
});
export type BatchWorkflowInput = z.infer<typeof BatchWorkflowInput>;
export type BatchWorkflowInputInit = z.input<typeof BatchWorkflowInput>;

export const BatchOutcomeStatus = z.enum(BATCH_OUTCOMES);
export type BatchOutcomeStatus = z.infer<typeof BatchOutcomeStatus>;
export const WaitReason = z.enum(WAIT_REASONS);
export type WaitReason = z.infer<typeof WaitReason>;

/** One line of results.jsonl: what input `index` ended as, written exactly once. */
export const BatchResultLine = z.looseObject({
  index: z.number().int(),
  status: BatchOutcomeStatus,
  output: z.unknown().optional(),
  error: z.string().optional(),
  errorType: z.string().optional(),
  /** Remote jobs run for this input (a `/retry` reruns the same id). */
  attempts: z.number().int(),
  remoteJobIds: z.array(z.string()),
  executionTime: z.number().optional(),
  delayTime: z.number().optional(),
  /** Epoch ms of the first submission and of the outcome. */
  submittedAt: z.number().optional(),
  endedAt: z.number(),
});
export type BatchResultLine = z.infer<typeof BatchResultLine>;

/** Counts of inputs by outcome, and of work in progress. */
export const BatchCounts = z.strictObject({
  total: z.number().int().optional(),
  read: z.number().int(),
  submitted: z.number().int(),
  inFlight: z.number().int(),
  waitingRetry: z.number().int(),
  done: z.number().int(),
  byStatus: z.partialRecord(BatchOutcomeStatus, z.number().int()),
  retries: z.number().int(),
  rateLimited: z.number().int(),
  /** Submissions the service answered with a job it had already created for the same key (idempotency). */
  duplicatesAvoided: z.number().int(),
});
export type BatchCounts = z.infer<typeof BatchCounts>;

/** Live state of a batch (the `batchState` query) and, at the end, its summary. */
export const BatchState = z.strictObject({
  batchId: z.string(),
  endpointId: z.string(),
  phase: z.enum(['running', 'paused', 'cancelling', 'finishing', 'done']),
  counts: BatchCounts,
  waiting: z.array(WaitReason),
  /** Estimated spend so far (USD), from the jobs' executionTime and the price per worker-hour. */
  spend: z.number(),
  pricePerHour: z.number().optional(),
  /** Per second, over the run so far. */
  submitRate: z.number(),
  completeRate: z.number(),
  /** Epoch ms of the estimated end, when the rate allows one. */
  eta: z.number().optional(),
  startedAt: z.number(),
  endedAt: z.number().optional(),
  /** Average executionTime (ms) of finished jobs. */
  avgExecutionMs: z.number().optional(),
  lastErrors: z.array(z.strictObject({ index: z.number().int(), error: z.string() })),
  runs: z.number().int(),
  options: z.strictObject({
    concurrency: z.number().int(),
    keyLimit: z.number().int().optional(),
    maxCost: z.number().optional(),
    deadline: z.number().optional(),
  }),
  /** Where results.jsonl, dead-letter.jsonl and summary.json are (once done). */
  outDir: z.string(),
  /**
   * A retry-failed run: its attempt of the batch, the run it retried, how many inputs it re-runs and
   * their outcomes. While it runs `counts` are of those inputs; once done, of every input (merged).
   */
  retry: z
    .strictObject({
      attempt: z.number().int(),
      of: z.string(),
      inputs: z.number().int(),
      byStatus: z.partialRecord(BatchOutcomeStatus, z.number().int()),
    })
    .optional(),
});
export type BatchState = z.infer<typeof BatchState>;

/** How far an open feed goes (`batchFeed` signal): its lines and bytes so far, and whether more may come. */
export interface BatchFeed {
  lines: number;
  bytes: number;
  closed: boolean;
  /** The feeder stopped (a pipeline's `cost-cap`): the batch submits no more, as under its own cap. */
  stop?: WaitReason;
}

/** Live changes of a running batch (`configure` update). */
export const BatchConfigure = z.strictObject({
  concurrency: z.number().int().min(1).max(5000).optional(),
  keyLimit: z.number().int().min(1).optional(),
  maxCost: z.number().positive().nullable().optional(),
  deadline: z.number().int().positive().nullable().optional(),
});
export type BatchConfigure = z.infer<typeof BatchConfigure>;
