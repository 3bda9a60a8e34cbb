/**
 * The scaler workflow's state: what one run carries into the next ({@link ScalerCarry}), a run's
 * live state ({@link ScalerRun}: the carried fields, the config and the run's own flags), and the
 * `ScalerState` its query answers. Plain data; the workflow, its handlers and its tick share one run.
 */
import type {
  Backlog,
  Bounds,
  Decision,
  HealthSample,
  Override,
  ScaleWindow,
  ScalerConfig,
  ScalerState,
  ScalerWorkflowInput,
} from '../../contracts';
import type { PolicyMemory } from './policy';

/** What a scaler carries into its next run (its field names are recorded in history: the continue-as-new input). */
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

/** Health samples kept for the policy. */
export const SAMPLES_KEPT = 12;

/** One run of a scaler: the carried state (the bounds unknown until the first read), the live config, and the run's flags. */
export interface ScalerRun {
  readonly endpointId: string;
  config: ScalerConfig;
  readonly startedAt: number;
  /** This run's number, from 1. */
  readonly runs: number;
  found: Bounds | undefined;
  bounds: Bounds | undefined;
  memory: PolicyMemory;
  samples: HealthSample[];
  readonly decisions: Decision[];
  override: Override | undefined;
  window: ScaleWindow | undefined;
  backlogs: Backlog[];
  paused: boolean;
  healthFailures: number;
  pricePerHour: number | undefined;
  writes: number;
  lastWriteAt: number | undefined;
  ticks: number;
  /** The last decision's flags, as the status shows them. */
  last: { spendCapBinding: boolean; fallbackActive: boolean };
  /** Ticks started and ended in this run: a message is in effect once a tick that started after it has ended. */
  started: number;
  done: number;
  /** A message asks for a tick now, not after the interval. */
  wake: boolean;
  /** Cancellation was requested; `stopped` once the found bounds are restored. */
  stopping: boolean;
  stopped: boolean;
  /** The run is about to continue as new (the next run applies what is pending). */
  handingOver: boolean;
  /** When this run last pulled the batches' backlog. */
  lastScanAt: number | undefined;
}

/** A run's state at its start: the carry of the previous run, or a new scaler's. */
export function openRun(input: ScalerWorkflowInput, carry: ScalerCarry | undefined, now: number): ScalerRun {
  return {
    endpointId: input.endpointId,
    config: input.config,
    startedAt: carry?.startedAt ?? now,
    runs: (carry?.runs ?? 0) + 1,
    found: carry?.found,
    bounds: carry?.bounds,
    memory: carry?.memory ?? { target: 0, history: [] },
    samples: carry?.samples ?? [],
    decisions: carry?.decisions ?? [],
    override: carry?.override,
    window: carry?.window,
    backlogs: carry?.backlogs ?? [],
    paused: carry?.paused ?? false,
    healthFailures: carry?.healthFailures ?? 0,
    pricePerHour: carry?.pricePerHour,
    writes: carry?.writes ?? 0,
    lastWriteAt: carry?.lastWriteAt,
    ticks: carry?.ticks ?? 0,
    last: { spendCapBinding: false, fallbackActive: false },
    started: 0,
    done: 0,
    wake: false,
    stopping: false,
    stopped: false,
    handingOver: false,
    lastScanAt: undefined,
  };
}

/** What the state query answers. */
export function scalerState(r: ScalerRun): ScalerState {
  return {
    endpointId: r.endpointId,
    phase: r.stopped ? 'stopped' : r.stopping ? 'stopping' : r.paused ? 'paused' : 'running',
    ...(r.bounds ? { bounds: r.bounds } : {}),
    ...(r.found ? { found: r.found } : {}),
    target: r.memory.target,
    ...(r.samples.length ? { load: r.samples.at(-1)! } : {}),
    decisions: r.decisions,
    ...(r.override ? { override: r.override } : {}),
    ...(r.window ? { window: r.window } : {}),
    backlogs: r.backlogs,
    fallbackActive: r.last.fallbackActive,
    healthFailures: r.healthFailures,
    spendCapBinding: r.last.spendCapBinding,
    ...(r.pricePerHour !== undefined ? { pricePerHour: r.pricePerHour } : {}),
    config: r.config,
    writes: r.writes,
    ...(r.lastWriteAt !== undefined ? { lastWriteAt: r.lastWriteAt } : {}),
    ticks: r.ticks,
    runs: r.runs,
    startedAt: r.startedAt,
  };
}

/** What the run hands to the next (once the bounds were found). */
export function carryOf(r: ScalerRun): ScalerCarry {
  return {
    memory: r.memory,
    samples: r.samples,
    decisions: r.decisions,
    found: r.found!,
    bounds: r.bounds!,
    backlogs: r.backlogs,
    paused: r.paused,
    healthFailures: r.healthFailures,
    writes: r.writes,
    ticks: r.ticks,
    runs: r.runs,
    startedAt: r.startedAt,
    ...(r.override ? { override: r.override } : {}),
    ...(r.window ? { window: r.window } : {}),
    ...(r.pricePerHour !== undefined ? { pricePerHour: r.pricePerHour } : {}),
    ...(r.lastWriteAt !== undefined ? { lastWriteAt: r.lastWriteAt } : {}),
  };
}
