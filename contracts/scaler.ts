/**
 * Wire shapes of the scaler orchestration: what the scaler samples (`/health`), the bounds it
 * writes (workersMin/workersMax), its decisions and live state, and the messages it takes (override,
 * pause, resume, configure, schedule window, a batch's backlog). Plain JSON only. Its config and
 * input are in scaler-options.ts (re-exported here).
 */
import { z } from 'zod';
import { DECISION_KINDS } from './names/scaler';
import { ScalerOptions, ms, workers } from './scaler-options';

export {
  FallbackOptions,
  ScaleUpOptions,
  ScalerWorkflowInput,
  ScalerConfigure,
  ScalerOptions,
  type ScalerConfig,
  type ScalerOptionsInput,
} from './scaler-options';

/** An endpoint's bounds: what the platform's own scaler moves workers between. */
export const Bounds = z
  .strictObject({ workersMin: workers('workersMin'), workersMax: workers('workersMax') })
  .refine((b) => b.workersMin <= b.workersMax, { error: 'workersMin must not exceed workersMax' });
export type Bounds = z.infer<typeof Bounds>;

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
export const OverrideInput = z
  .strictObject({
    workersMin: workers('workersMin'),
    workersMax: workers('workersMax'),
    /** How long the pin holds, ms. */
    forMs: ms('forMs', 1000, 30 * 86_400_000),
  })
  .refine((o) => o.workersMin <= o.workersMax, { error: 'workersMin must not exceed workersMax' });
export type OverrideInput = z.infer<typeof OverrideInput>;
/** An override in force: the pinned bounds until `until` (epoch ms). */
export const Override = z.strictObject({
  workersMin: z.number().int(),
  workersMax: z.number().int(),
  until: z.number(),
});
export type Override = z.infer<typeof Override>;

/** A floor/ceiling window set by a schedule (or a person); `until` ends it (epoch ms), else it holds until replaced. */
export const ScaleWindow = z
  .strictObject({
    floor: workers('floor').optional(),
    ceiling: workers('ceiling').optional(),
    until: z.number().int().positive().optional(),
    /** Who set it (a schedule's id), for the status. */
    source: z.string().max(200).optional(),
  })
  .refine((w) => w.floor === undefined || w.ceiling === undefined || w.floor <= w.ceiling, {
    error: 'floor must not exceed ceiling',
  });
export type ScaleWindow = z.infer<typeof ScaleWindow>;

/** What a batch on the endpoint reports: its remaining work, its observed job duration, its deadline. */
export const BacklogReport = z.strictObject({
  /** Who reports (a batch workflow id): a newer report of the same source replaces the older. */
  source: z.string().min(1).max(300),
  /** Jobs not finished yet (queued, in flight, not submitted). */
  remaining: z.number().int().min(0),
  /** Observed (or expected) execution time of one job, ms. */
  jobMs: z
    .number()
    .positive()
    .max(7 * 86_400_000),
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
  config: ScalerOptions,
  /** Bounds written through saveEndpoint by this scaler (all runs). */
  writes: z.number().int(),
  lastWriteAt: z.number().optional(),
  ticks: z.number().int(),
  runs: z.number().int(),
  startedAt: z.number(),
});
export type ScalerState = z.infer<typeof ScalerState>;
