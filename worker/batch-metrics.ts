/**
 * Per-batch Prometheus series (`sluice_batch_*`, labels `batch` and `endpoint`) from the state the
 * batch workflow answers (`batchState`, what `sluice batch status` shows), kept by batch id and
 * dropped once the batch ended more than `retentionMs` ago: the series follow the batches running.
 */
import { type Registry } from 'prom-client';
import { type BatchState } from '../contracts';
import { defineSeries, RetainedStates, type SeriesDef } from './metric-series';

/** Options of {@link BatchMetrics}. */
export interface BatchMetricsOptions {
  /**
   * How long the series of an ended batch stay (its final counts), ms.
   * @default 600000 (10 min)
   */
  retentionMs?: number;
}

const one = (key: string): Record<string, number> => ({ [key]: 1 });

/** The `sluice_batch_*` metrics; a pipeline's are `sluice_pipeline_*` beside them (worker/pipeline-metrics.ts). */
export const BATCH_SERIES: SeriesDef<BatchState>[] = [
  {
    name: 'sluice_batch_inputs',
    help: 'Inputs of the batch (lines of its input file; of a rerun, the inputs it re-runs)',
    value: (s) => s.retry?.inputs ?? s.counts.total,
  },
  {
    name: 'sluice_batch_outcomes_total',
    help: 'Inputs that ended, by outcome (COMPLETED, FAILED, TIMED_OUT, CANCELLED, JOB_EXPIRED, BAD_INPUT, NOT_SUBMITTED)',
    counter: true,
    label: 'status',
    value: (s) => s.counts.byStatus as Record<string, number>,
  },
  {
    name: 'sluice_batch_submitted_total',
    help: 'Inputs submitted as remote jobs',
    counter: true,
    value: (s) => s.counts.submitted,
  },
  { name: 'sluice_batch_retries_total', help: 'Remote jobs retried', counter: true, value: (s) => s.counts.retries },
  { name: 'sluice_batch_in_flight', help: 'Remote jobs submitted and not finished', value: (s) => s.counts.inFlight },
  {
    name: 'sluice_batch_waiting_retry',
    help: 'Inputs waiting for their next attempt',
    value: (s) => s.counts.waitingRetry,
  },
  {
    name: 'sluice_batch_spend_usd',
    help: "Estimated spend so far (the jobs' executionTime x the price per worker-hour), USD",
    value: (s) => s.spend,
  },
  {
    name: 'sluice_batch_max_cost_usd',
    help: 'The cost cap (--max-cost), USD, when set',
    value: (s) => s.options.maxCost,
  },
  { name: 'sluice_batch_concurrency', help: 'The concurrency window', value: (s) => s.options.concurrency },
  {
    name: 'sluice_batch_phase',
    help: '1 for the phase the batch is in (running, paused, cancelling, finishing, done)',
    label: 'phase',
    value: (s) => one(s.phase),
  },
  {
    name: 'sluice_batch_waiting',
    help: '1 for each reason the batch is not submitting now (window-full, rate-budget, no-webhooks, ...)',
    label: 'reason',
    value: (s) => Object.fromEntries(s.waiting.map((r) => [r, 1])),
  },
  {
    name: 'sluice_batch_eta_timestamp_seconds',
    help: 'Estimated end of the batch (epoch seconds), while it runs and its rate allows one',
    value: (s) => (s.eta !== undefined && s.phase !== 'done' ? s.eta / 1000 : undefined),
  },
];

/** The batches one daemon reports, by batch id (kept for the retention once ended). */
export class BatchMetrics extends RetainedStates<BatchState> {
  constructor(registry: Registry, o: BatchMetricsOptions = {}) {
    super((s) => s.batchId, o.retentionMs ?? 600_000);
    defineSeries(
      registry,
      BATCH_SERIES,
      ['batch', 'endpoint'],
      (s) => ({ batch: s.batchId, endpoint: s.endpointId }),
      () => this.states(),
    );
  }
}
