/**
 * Per-pipeline Prometheus series (`sluice_pipeline_*`, label `pipeline`, and `stage` for a stage's)
 * from the state the pipeline workflow answers (`pipelineState`, what `sluice pipeline status` shows),
 * each stage with its batch's state; kept by pipeline id and dropped once ended for the retention.
 */
import { type Registry } from 'prom-client';
import { type PipelineStageState, type PipelineState } from '../contracts';
import { defineSeries, RetainedStates, type SeriesDef } from './metric-series';

/** Options of {@link PipelineMetrics}. */
export interface PipelineMetricsOptions {
  /**
   * How long the series of an ended pipeline stay (its final counts), ms.
   * @default 600000 (10 min)
   */
  retentionMs?: number;
}

/** One stage of one pipeline, as its series read it. */
interface StageRow {
  pipelineId: string;
  stage: PipelineStageState;
}

const spendOf = (s: PipelineState): number => s.stages.reduce((sum, st) => sum + (st.batch?.spend ?? 0), 0);

export const PIPELINE_SERIES: SeriesDef<PipelineState>[] = [
  {
    name: 'sluice_pipeline_inputs',
    help: 'Inputs of the pipeline (lines of its input file)',
    value: (s) => s.counts.total,
  },
  {
    name: 'sluice_pipeline_outcomes_total',
    help: 'Inputs that ended, by outcome (COMPLETED, FAILED, SKIPPED, BAD_INPUT, NOT_SUBMITTED, CANCELLED)',
    counter: true,
    label: 'status',
    value: (s) => s.counts.byStatus as Record<string, number>,
  },
  { name: 'sluice_pipeline_in_flight', help: 'Inputs read and not ended', value: (s) => s.counts.inFlight },
  { name: 'sluice_pipeline_spend_usd', help: "Estimated spend of every stage's jobs so far, USD", value: spendOf },
  { name: 'sluice_pipeline_max_cost_usd', help: 'The cost cap (maxCost), USD, when set', value: (s) => s.maxCost },
  {
    name: 'sluice_pipeline_phase',
    help: '1 for the phase the pipeline is in (running, paused, cancelling, finishing, done)',
    label: 'phase',
    value: (s) => ({ [s.phase]: 1 }),
  },
];

export const PIPELINE_STAGE_SERIES: SeriesDef<StageRow>[] = [
  {
    name: 'sluice_pipeline_stage_inputs',
    help: 'Inputs at the stage now (fed, not ended there)',
    value: (r) => r.stage.active,
  },
  {
    name: 'sluice_pipeline_stage_outcomes_total',
    help: "The stage's jobs that ended, by outcome (its batch's: COMPLETED, FAILED, TIMED_OUT...)",
    counter: true,
    label: 'status',
    value: (r) => r.stage.batch?.counts.byStatus as Record<string, number> | undefined,
  },
  {
    name: 'sluice_pipeline_stage_in_flight',
    help: "The stage's remote jobs submitted and not finished",
    value: (r) => r.stage.batch?.counts.inFlight,
  },
  {
    name: 'sluice_pipeline_stage_spend_usd',
    help: "Estimated spend of the stage's jobs, USD",
    value: (r) => r.stage.batch?.spend,
  },
  {
    name: 'sluice_pipeline_stage_rate',
    help: "The stage's jobs ended per second, as its batch measures it (what `sluice pipeline status` shows)",
    value: (r) => r.stage.batch?.completeRate,
  },
];

/** The pipelines one daemon reports, by pipeline id (kept for the retention once ended). */
export class PipelineMetrics extends RetainedStates<PipelineState> {
  constructor(registry: Registry, o: PipelineMetricsOptions = {}) {
    super((s) => s.pipelineId, o.retentionMs ?? 600_000);
    defineSeries(
      registry,
      PIPELINE_SERIES,
      ['pipeline'],
      (s) => ({ pipeline: s.pipelineId }),
      () => this.states(),
    );
    defineSeries(
      registry,
      PIPELINE_STAGE_SERIES,
      ['pipeline', 'stage'],
      (r) => ({ pipeline: r.pipelineId, stage: r.stage.name }),
      () => this.states().flatMap((s) => s.stages.map((stage) => ({ pipelineId: s.pipelineId, stage }))),
    );
  }
}
