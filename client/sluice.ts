/** The library's front door: one object per connection, one member per orchestration. */
import { BatchClient } from './batch';
import { JobClient, type JobClientOptions } from './job';
import { PipelineClient } from './pipeline';
import { ScalerClient } from './scaler';

/** Options of {@link SluiceClient}: shared by every orchestration. */
export type SluiceClientOptions = JobClientOptions;

/**
 * What pipelines import: `sluice.job` runs single remote jobs durably, `sluice.batch` runs batches
 * of them, `sluice.scaler` keeps endpoints' workersMin/workersMax right, `sluice.pipeline` runs inputs through several endpoints.
 */
export class SluiceClient {
  /** Single remote jobs through the job workflow. */
  readonly job: JobClient;
  /** Batches of jobs from JSONL files through the batch workflow. */
  readonly batch: BatchClient;
  /** One scaler per endpoint through the scaler workflow. */
  readonly scaler: ScalerClient;
  /** Pipelines: every input through several endpoints, stage after stage, through the pipeline workflow. */
  readonly pipeline: PipelineClient;

  constructor(options: SluiceClientOptions) {
    this.job = new JobClient(options);
    this.batch = new BatchClient(options);
    this.scaler = new ScalerClient(options);
    this.pipeline = new PipelineClient(options);
  }
}
