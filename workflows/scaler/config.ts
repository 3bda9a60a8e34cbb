/** The scaler's config as the workflow applies it: a live change (the configure update) and the backlog scan period. Pure. */
import type { ScalerConfig, ScalerConfigure } from '../../contracts';

/** Applies a live change to the config (`null` clears an optional field); throws when the result is inconsistent. */
export function configured(config: ScalerConfig, change: ScalerConfigure): ScalerConfig {
  const next: Record<string, unknown> = { ...config };
  for (const [k, v] of Object.entries(change)) {
    if (v === null) delete next[k];
    else if (v !== undefined) next[k] = v;
  }
  const c = next as ScalerConfig;
  if (c.floor > c.ceiling) throw new Error(`floor ${c.floor} must not exceed ceiling ${c.ceiling}`);
  return c;
}

/** Time between backlog pulls: the config's, or its default for a scaler started before the field existed. */
export const backlogScanMs = (c: ScalerConfig): number => c.backlogScanMs ?? 10_000;
