import { z } from 'zod';
import { DECISION_KINDS, DRIFT_POLICIES, FALLBACK_MODES } from './names/scaling';

/**
 * Wire shapes of the scaling orchestration: the scaler's config, what it samples (`/health`), the
 * bounds it writes (workersMin/workersMax), its decisions and live state, and the messages it takes
 * (override, pause, resume, configure, schedule window, a batch's backlog). Plain JSON only.
 */

const workers = (field: string) => z.number({ error: `${field} must be a number` }).int({ error: `${field} must be an integer` })
  .min(0, { error: `${field} must be at least 0` }).max(100, { error: `${field} must be at most 100` });
const ms = (field: string, min: number, max: number) => z.number({ error: `${field} must be a number (ms)` }).int({ error: `${field} must be whole ms` })
  .min(min, { error: `${field} must be at least ${min} ms` }).max(max, { error: `${field} must be at most ${max} ms` });

/** An endpoint's bounds: what the platform's own scaler moves workers between. */
export const Bounds = z.strictObject({ workersMin: workers('workersMin'), workersMax: workers('workersMax') })
  .refine((b) => b.workersMin <= b.workersMax, { error: 'workersMin must not exceed workersMax' });
export type Bounds = z.infer<typeof Bounds>;

/** Step limits of a scale-up, like HPA's policies: at most +workers or +percent (the larger) per period. */
export const ScaleUpOptions = z.strictObject({
  /** Workers added at most per period. @default 4 */
  workers: z.number().int().min(1).max(100).default(4),
  /** Percent of the target at the start of the period added at most per period. @default 100 */
  percent: z.number().min(0).max(1000).default(100),
  /** The period, ms. @default 15000 */
  periodMs: ms('scaleUp.periodMs', 0, 3_600_000).default(15_000),
});
export type ScaleUpOptions = z.infer<typeof ScaleUpOptions>;

/** What the scaler does when `/health` keeps failing (KEDA's fallback). */
export const FallbackOptions = z.strictObject({
  /** Failed samples in a row that start the fallback. @default 3 */
  failureThreshold: z.number().int().min(1).max(1000).default(3),
  /** `freeze`: keep the bounds as they are; `bounds`: move to `workersMin`/`workersMax` below. @default 'freeze' */
  mode: z.enum(FALLBACK_MODES).default('freeze'),
  workersMin: workers('fallback.workersMin').optional(),
  workersMax: workers('fallback.workersMax').optional(),
}).refine((f) => f.mode === 'freeze' || (f.workersMin !== undefined && f.workersMax !== undefined && f.workersMin <= f.workersMax), {
  error: 'fallback mode "bounds" needs workersMin <= workersMax',
});
export type FallbackOptions = z.infer<typeof FallbackOptions>;

const scalingFields = {
  /** workersMin never goes below this (warm workers kept at all times). @default 0 */
  floor: workers('floor').default(0),
  /** workersMax never goes above this. @default 10 */
  ceiling: workers('ceiling').default(10),
  /** Jobs (in queue + in progress) one worker should carry: the target is `ceil(load / targetPerWorker)`. @default 1 */
  targetPerWorker: z.number().positive({ error: 'targetPerWorker must be positive' }).max(10_000).default(1),
  /** Instead of targetPerWorker: enough workers that the queue drains within this delay (needs an observed job duration). */
  targetQueueDelayMs: ms('targetQueueDelayMs', 100, 86_400_000).optional(),
  /** Load (jobs) that wakes a scaler whose target is 0 (0 -> 1 is decided apart from 1 -> N). @default 1 */
  activationThreshold: z.number().int().min(1).max(100_000).default(1),
  /** A change of the target within this fraction of it is ignored (HPA's tolerance). @default 0.1 */
  deadBand: z.number().min(0).max(1).default(0.1),
  /** Extra workersMax above the target: the platform's own scaler absorbs a burst before the next tick (idle capacity costs nothing). @default 1 */
  headroom: z.number().int().min(0).max(100).default(1),
  /**
   * Warm workers (workersMin) follow the load of the last warmHoldMs only, while workersMax keeps the
   * target through the stabilization window: idle workers above workersMin are stopped by the
   * platform after its idleTimeout and started again (a cold start) when load comes back within the
   * window. About one cold start (ski rental). Absent: workersMin = the target (kept for the window).
   */
  warmHoldMs: ms('warmHoldMs', 0, 86_400_000).optional(),
  scaleUp: ScaleUpOptions.default(ScaleUpOptions.parse({})),
  /** Scale-down takes the highest recommendation of this window (HPA's stabilization window). @default 300000 */
  stabilizationWindowMs: ms('stabilizationWindowMs', 0, 86_400_000).default(300_000),
  /** No load for this long before the target drops from 1 to 0 (KEDA's cooldownPeriod). @default 300000 */
  cooldownMs: ms('cooldownMs', 0, 86_400_000).default(300_000),
  fallback: FallbackOptions.default(FallbackOptions.parse({})),
  /** Spend cap: workers x price per worker-hour (USD) stays at or under this; it caps the ceiling. */
  maxSpendPerHour: z.number().positive({ error: 'maxSpendPerHour must be positive' }).optional(),
  /** Price of one worker-hour (USD); default: the endpoint's worker `costPerHr` read over REST. */
  pricePerHour: z.number().min(0).optional(),
  /** Time between health samples, ms. @default 5000 */
  intervalMs: ms('intervalMs', 200, 3_600_000).default(5000),
  /** At most one bounds write per this gap, ms, except a scale-up (bursts are not held back). @default 30000 */
  minWriteGapMs: ms('minWriteGapMs', 0, 86_400_000).default(30_000),
  /** Someone else changed the bounds: `reassert` the scaler's, or `adopt` theirs as the new floor and ceiling. @default 'reassert' */
  drift: z.enum(DRIFT_POLICIES).default('reassert'),
  /** A backlog report not refreshed for this long is dropped, ms. @default 120000 */
  backlogTtlMs: ms('backlogTtlMs', 1000, 86_400_000).default(120_000),
  /**
   * How often the scaler pulls the backlog of the batches running on the endpoint (their `batchState`:
   * remaining work, average job time, deadline), ms; 0: only pushed reports count. @default 10000
   */
  backlogScanMs: ms('backlogScanMs', 0, 86_400_000).default(10_000),
  /** Continue-as-new after this many ticks even before Temporal suggests it (tests lower it). @default 500 */
  ticksPerRun: z.number().int().min(2).max(100_000).default(500),
};

/** Options of one endpoint's scaler; every field has a documented default. */
export const ScalingOptions = z.strictObject(scalingFields).refine((c) => c.floor <= c.ceiling, { error: 'floor must not exceed ceiling' });
export type ScalingOptions = z.infer<typeof ScalingOptions>;
export type ScalingOptionsInput = z.input<typeof ScalingOptions>;
/** The config the workflow runs with: {@link ScalingOptions} with every default filled in. */
export type ScalingConfig = ScalingOptions;

/** Live changes of a running scaler (`configure` update): any field; `null` clears an optional one. */
export const ScalingConfigure = z.strictObject({
  // Every field optional, without its default (an absent field stays as it is).
  ...(Object.fromEntries(Object.entries(scalingFields).map(([k, v]) => [k, (v instanceof z.ZodDefault ? v.unwrap() : v).optional()])) as unknown as {
    [K in keyof typeof scalingFields]: z.ZodOptional<z.ZodType<z.output<(typeof scalingFields)[K]>, z.input<(typeof scalingFields)[K]>>>
  }),
  maxSpendPerHour: z.number().positive().nullable().optional(),
  pricePerHour: z.number().min(0).nullable().optional(),
  targetQueueDelayMs: ms('targetQueueDelayMs', 100, 86_400_000).nullable().optional(),
  warmHoldMs: ms('warmHoldMs', 0, 86_400_000).nullable().optional(),
});
export type ScalingConfigure = z.infer<typeof ScalingConfigure>;

/** Input of the scaler workflow. */
export const ScalerWorkflowInput = z.strictObject({
  endpointId: z.string().min(1),
  config: ScalingOptions.default(ScalingOptions.parse({})),
});
export type ScalerWorkflowInput = z.infer<typeof ScalerWorkflowInput>;

/** One `/health` sample: `ok: false` when the call failed (then `error` says why). */
export const HealthSample = z.strictObject({
  at: z.number(),
  ok: z.boolean(),
  inQueue: z.number().int(),
  inProgress: z.number().int(),
  /** Workers busy with jobs (`workers.running`). */
  running: z.number().int(),
  idle: z.number().int(),
  initializing: z.number().int(),
  completed: z.number().int(),
  error: z.string().optional(),
});
export type HealthSample = z.infer<typeof HealthSample>;

/** A manual pin of the bounds that expires by itself. */
export const OverrideInput = z.strictObject({
  workersMin: workers('workersMin'),
  workersMax: workers('workersMax'),
  /** How long the pin holds, ms. */
  forMs: ms('forMs', 1000, 30 * 86_400_000),
}).refine((o) => o.workersMin <= o.workersMax, { error: 'workersMin must not exceed workersMax' });
export type OverrideInput = z.infer<typeof OverrideInput>;
/** An override in force: the pinned bounds until `until` (epoch ms). */
export const Override = z.strictObject({ workersMin: z.number().int(), workersMax: z.number().int(), until: z.number() });
export type Override = z.infer<typeof Override>;

/** A floor/ceiling window set by a schedule (or a person); `until` ends it (epoch ms), else it holds until replaced. */
export const ScaleWindow = z.strictObject({
  floor: workers('floor').optional(),
  ceiling: workers('ceiling').optional(),
  until: z.number().int().positive().optional(),
  /** Who set it (a schedule's id), for the status. */
  source: z.string().max(200).optional(),
}).refine((w) => w.floor === undefined || w.ceiling === undefined || w.floor <= w.ceiling, { error: 'floor must not exceed ceiling' });
export type ScaleWindow = z.infer<typeof ScaleWindow>;

/** What a batch on the endpoint reports: its remaining work, its observed job duration, its deadline. */
export const BacklogReport = z.strictObject({
  /** Who reports (a batch workflow id): a newer report of the same source replaces the older. */
  source: z.string().min(1).max(300),
  /** Jobs not finished yet (queued, in flight, not submitted). */
  remaining: z.number().int().min(0),
  /** Observed (or expected) execution time of one job, ms. */
  jobMs: z.number().positive().max(7 * 86_400_000),
  /** Epoch ms the work should be done by; without it the backlog asks for as many workers as jobs (within the ceiling). */
  deadline: z.number().int().positive().optional(),
  /** Jobs the batch keeps in flight at most: more workers than this for it would sit idle. */
  concurrency: z.number().int().min(1).optional(),
  /** Epoch ms of the report (the scaler stamps it when absent). */
  reportedAt: z.number().int().positive().optional(),
});
export type BacklogReport = z.infer<typeof BacklogReport>;
/** A backlog as the scaler keeps it (stamped). */
export const Backlog = BacklogReport.extend({
  reportedAt: z.number().int().positive(),
  /** Absent on a pulled batch that finished no job yet: it asks for a worker per `targetPerWorker` jobs, like one without a deadline. */
  jobMs: BacklogReport.shape.jobMs.optional(),
  /** Read by the scaler from a running batch's state (dropped once the batch no longer runs), not pushed. */
  pulled: z.boolean().optional(),
});
export type Backlog = z.infer<typeof Backlog>;

export const DecisionKind = z.enum(DECISION_KINDS);
export type DecisionKind = z.infer<typeof DecisionKind>;

/** One decision of the scaler: the bounds the endpoint should have and why, in words. */
export const Decision = z.strictObject({
  at: z.number(),
  kind: DecisionKind,
  reason: z.string(),
  bounds: Bounds,
  /** True when the bounds are to be written now (a changed bound, outside the min write gap or a scale-up). */
  write: z.boolean(),
  /** The worker target behind the bounds, and this tick's raw recommendation (kept for stabilization). */
  target: z.number().int(),
  recommendation: z.number().int(),
  spendCapBinding: z.boolean(),
  fallbackActive: z.boolean(),
  /** Drift with `adopt`: the new floor and ceiling. */
  adopt: z.strictObject({ floor: z.number().int(), ceiling: z.number().int() }).optional(),
  /** The tick (1, 2, ... over all runs) that made it; absent on the workflow's own notes (start, restore). */
  tick: z.number().int().optional(),
});
export type Decision = z.infer<typeof Decision>;

/** Live state of a scaler (the `scalerState` query). */
export const ScalerState = z.strictObject({
  endpointId: z.string(),
  phase: z.enum(['running', 'paused', 'stopping', 'stopped']),
  /** The bounds the endpoint has (last read or written), and the ones found at start (restored on stop). */
  bounds: Bounds.optional(),
  found: Bounds.optional(),
  target: z.number().int(),
  /** The last health sample. */
  load: HealthSample.optional(),
  /** The last decisions that changed something or said something new, newest last. */
  decisions: z.array(Decision),
  override: Override.optional(),
  window: ScaleWindow.optional(),
  backlogs: z.array(Backlog),
  fallbackActive: z.boolean(),
  healthFailures: z.number().int(),
  /** The spend cap lowered the bounds the policy wanted. */
  spendCapBinding: z.boolean(),
  pricePerHour: z.number().optional(),
  config: ScalingOptions,
  /** Bounds written through saveEndpoint by this scaler (all runs). */
  writes: z.number().int(),
  lastWriteAt: z.number().optional(),
  ticks: z.number().int(),
  runs: z.number().int(),
  startedAt: z.number(),
});
export type ScalerState = z.infer<typeof ScalerState>;
