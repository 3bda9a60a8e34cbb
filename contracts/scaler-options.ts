/**
 * The scaler's options (wire shapes, plain JSON): its config with every default documented, the
 * live changes of a running scaler (`configure`), and the scaler workflow's input.
 */
import { z } from 'zod';
import { DRIFT_POLICIES, FALLBACK_MODES } from './names/scaler';

/** A worker count field (0..100), its messages naming the field. */
export const workers = (field: string) =>
  z
    .number({ error: `${field} must be a number` })
    .int({ error: `${field} must be an integer` })
    .min(0, { error: `${field} must be at least 0` })
    .max(100, { error: `${field} must be at most 100` });
/** A duration field in whole ms within [min, max], its messages naming the field. */
export const ms = (field: string, min: number, max: number) =>
  z
    .number({ error: `${field} must be a number (ms)` })
    .int({ error: `${field} must be whole ms` })
    .min(min, { error: `${field} must be at least ${min} ms` })
    .max(max, { error: `${field} must be at most ${max} ms` });

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
export const FallbackOptions = z
  .strictObject({
    /** Failed samples in a row that start the fallback. @default 3 */
    failureThreshold: z.number().int().min(1).max(1000).default(3),
    /** `freeze`: keep the bounds as they are; `bounds`: move to `workersMin`/`workersMax` below. @default 'freeze' */
    mode: z.enum(FALLBACK_MODES).default('freeze'),
    workersMin: workers('fallback.workersMin').optional(),
    workersMax: workers('fallback.workersMax').optional(),
  })
  .refine(
    (f) =>
      f.mode === 'freeze' || (f.workersMin !== undefined && f.workersMax !== undefined && f.workersMin <= f.workersMax),
    {
      error: 'fallback mode "bounds" needs workersMin <= workersMax',
    },
  );
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
export const ScalerOptions = z
  .strictObject(scalingFields)
  .refine((c) => c.floor <= c.ceiling, { error: 'floor must not exceed ceiling' });
export type ScalerOptions = z.infer<typeof ScalerOptions>;
export type ScalerOptionsInput = z.input<typeof ScalerOptions>;
/** The config the workflow runs with: {@link ScalerOptions} with every default filled in. */
export type ScalerConfig = ScalerOptions;

/** Live changes of a running scaler (`configure` update): any field; `null` clears an optional one. */
export const ScalerConfigure = z.strictObject({
  // Every field optional, without its default (an absent field stays as it is).
  ...(Object.fromEntries(
    Object.entries(scalingFields).map(([k, v]) => [k, (v instanceof z.ZodDefault ? v.unwrap() : v).optional()]),
  ) as unknown as {
    [K in keyof typeof scalingFields]: z.ZodOptional<
      z.ZodType<z.output<(typeof scalingFields)[K]>, z.input<(typeof scalingFields)[K]>>
    >;
  }),
  maxSpendPerHour: z.number().positive().nullable().optional(),
  pricePerHour: z.number().min(0).nullable().optional(),
  targetQueueDelayMs: ms('targetQueueDelayMs', 100, 86_400_000).nullable().optional(),
  warmHoldMs: ms('warmHoldMs', 0, 86_400_000).nullable().optional(),
});
export type ScalerConfigure = z.infer<typeof ScalerConfigure>;

/** Input of the scaler workflow. */
export const ScalerWorkflowInput = z.strictObject({
  endpointId: z.string().min(1),
  config: ScalerOptions.default(ScalerOptions.parse({})),
});
export type ScalerWorkflowInput = z.infer<typeof ScalerWorkflowInput>;
