/**
 * Per-scaler Prometheus series (`sluice_scaler_*`, label `endpoint`) from the state the scaler
 * workflow answers (`scalerState`, what `sluice scaler status` shows): bounds, target, load,
 * fallback and spend cap. Only running scalers have series.
 */
import { type Registry } from 'prom-client';
import { type ScalerState } from '../contracts';
import { defineSeries, type SeriesDef } from './metric-series';

const flag = (b: boolean): number => (b ? 1 : 0);

export const SCALER_SERIES: SeriesDef<ScalerState>[] = [
  {
    name: 'sluice_scaler_workers_min',
    help: 'workersMin the scaler last read or wrote',
    value: (s) => s.bounds?.workersMin,
  },
  {
    name: 'sluice_scaler_workers_max',
    help: 'workersMax the scaler last read or wrote',
    value: (s) => s.bounds?.workersMax,
  },
  { name: 'sluice_scaler_target', help: 'Workers the policy wants', value: (s) => s.target },
  {
    name: 'sluice_scaler_fallback_active',
    help: '1 while the scaler holds its fallback bounds (the endpoint /health failing)',
    value: (s) => flag(s.fallbackActive),
  },
  { name: 'sluice_scaler_health_failures', help: '/health calls failed in a row', value: (s) => s.healthFailures },
  {
    name: 'sluice_scaler_spend_cap_binding',
    help: '1 while the spend cap lowers the bounds the policy wants',
    value: (s) => flag(s.spendCapBinding),
  },
  {
    name: 'sluice_scaler_max_spend_per_hour_usd',
    help: 'The spend cap, USD per hour, when set',
    value: (s) => s.config.maxSpendPerHour,
  },
  {
    name: 'sluice_scaler_phase',
    help: '1 for the phase the scaler is in (running, paused, stopping)',
    label: 'phase',
    value: (s) => ({ [s.phase]: 1 }),
  },
  {
    name: 'sluice_scaler_load_jobs',
    help: "Jobs in the endpoint's last /health sample, by status (in_queue, in_progress)",
    label: 'status',
    value: (s) => (s.load?.ok ? { in_queue: s.load.inQueue, in_progress: s.load.inProgress } : undefined),
  },
  {
    name: 'sluice_scaler_load_workers',
    help: "Workers in the endpoint's last /health sample, by status (running, idle, initializing)",
    label: 'status',
    value: (s) =>
      s.load?.ok ? { running: s.load.running, idle: s.load.idle, initializing: s.load.initializing } : undefined,
  },
  {
    name: 'sluice_scaler_bound_writes_total',
    help: 'Bounds the scaler wrote (saveEndpoint)',
    counter: true,
    value: (s) => s.writes,
  },
];

/** The scalers one daemon reports, by endpoint. */
export class ScalerMetrics {
  private scalers: ScalerState[] = [];

  constructor(registry: Registry) {
    defineSeries(
      registry,
      SCALER_SERIES,
      ['endpoint'],
      (s) => ({ endpoint: s.endpointId }),
      () => this.scalers,
    );
  }

  /** The scalers running now: the others' series go. */
  set(states: ScalerState[]): void {
    this.scalers = states;
  }

  get size(): number {
    return this.scalers.length;
  }
}
