/** What the scaler workflow carries between runs, and its small helpers: config changes, failure text, the decision log, pulled backlogs. */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type {
  Backlog,
  Bounds,
  Decision,
  DecisionKind,
  HealthSample,
  Override,
  ScaleWindow,
  ScalerConfig,
  ScalerConfigure,
} from '../../contracts';
import type { EndpointBacklog } from '../../activities/scaler/activities';
import { observedJobMs } from './demand';
import type { PolicyMemory } from './policy';

/** What a scaler carries into its next run. */
export interface ScalerCarry {
  memory: PolicyMemory;
  samples: HealthSample[];
  decisions: Decision[];
  found: Bounds;
  bounds: Bounds;
  override?: Override;
  window?: ScaleWindow;
  backlogs: Backlog[];
  paused: boolean;
  healthFailures: number;
  pricePerHour?: number;
  writes: number;
  lastWriteAt?: number;
  ticks: number;
  runs: number;
  startedAt: number;
}

/** Decisions kept in the state, health samples kept for the policy. */
export const DECISIONS_KEPT = 20;
export const SAMPLES_KEPT = 12;

export const errorOf = (err: unknown): string =>
  err instanceof ActivityFailure && err.cause ? err.cause.message : err instanceof Error ? err.message : String(err);
export const typeOf = (err: unknown): string | undefined =>
  err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? (err.cause.type ?? undefined) : undefined;

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

/** Appends a decision to the log when it writes, adopts, or its kind changes; keeps the last {@link DECISIONS_KEPT}. */
export function logDecision(decisions: Decision[], d: Decision): void {
  const prev = decisions.at(-1);
  if (d.write || d.adopt || !prev || prev.kind !== d.kind) decisions.push(d);
  if (decisions.length > DECISIONS_KEPT) decisions.splice(0, decisions.length - DECISIONS_KEPT);
}

/** A decision of the workflow itself (start, restore), not of the policy. */
export function note(kind: DecisionKind, reason: string, bounds: Bounds, target: number, write: boolean): Decision {
  return {
    at: Date.now(),
    kind,
    reason,
    bounds,
    write,
    target,
    recommendation: target,
    spendCapBinding: false,
    fallbackActive: false,
  };
}

/** Time between backlog pulls: the config's, or its default for a scaler started before the field existed. */
export const backlogScanMs = (c: ScalerConfig): number => c.backlogScanMs ?? 10_000;

/**
 * The backlogs after a pull: the pushed reports, and one pulled report per running batch of the scan
 * (a batch no longer listed has ended: its pulled report goes). A pushed report newer than one scan
 * period wins over the pull of the same source. A batch without an average job time yet takes the
 * duration observed from `/health`; with neither, the policy asks a worker per `targetPerWorker` of its jobs.
 */
export function mergePulled(
  backlogs: Backlog[],
  scan: EndpointBacklog,
  now: number,
  scanMs: number,
  samples: HealthSample[],
): Backlog[] {
  const pushed = backlogs.filter((b) => !b.pulled);
  const seen = observedJobMs(samples);
  const pulled: Backlog[] = [];
  for (const b of scan.batches) {
    const jobMs = b.jobMs ?? (seen !== undefined ? Math.max(1, Math.round(seen)) : undefined);
    if (pushed.some((x) => x.source === b.source && x.reportedAt > now - scanMs)) continue;
    pulled.push({
      source: b.source,
      remaining: b.remaining,
      concurrency: b.concurrency,
      ...(jobMs !== undefined ? { jobMs } : {}),
      ...(b.deadline !== undefined ? { deadline: b.deadline } : {}),
      reportedAt: now,
      pulled: true,
    });
  }
  return [...pushed.filter((x) => !pulled.some((p) => p.source === x.source)), ...pulled];
}
