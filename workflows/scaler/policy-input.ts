/** What the scaler's policy decides from ({@link PolicyInput}) and remembers between ticks ({@link PolicyMemory}). */
import type { Backlog, Bounds, HealthSample, Override, ScaleWindow, ScalerConfig } from '../../contracts/scaler';

/** What the policy remembers between ticks (carried across continue-as-new). */
export interface PolicyMemory {
  /** The worker target after the last decision. */
  target: number;
  /** One entry per tick: the raw recommendation and the target, for stabilization and step limits. */
  history: { at: number; rec: number; target: number }[];
  /** Last time there was load (jobs or a backlog): the cooldown to 0 counts from it. */
  lastLoadAt?: number;
  lastWriteAt?: number;
  /** The bounds the scaler last wrote or accepted: anything else read back is drift. */
  known?: Bounds;
}

export interface PolicyInput {
  now: number;
  config: ScalerConfig;
  /** Health samples, oldest first (failed ones have `ok: false`). */
  samples: HealthSample[];
  /** The endpoint's bounds as read now. */
  bounds: Bounds;
  memory: PolicyMemory;
  /** Failed health samples in a row. */
  healthFailures: number;
  pricePerHour?: number;
  backlogs?: Backlog[];
  window?: ScaleWindow;
  override?: Override;
  paused?: boolean;
}
