/** The library's front door: one object per connection, one member per orchestration. */
import { JobClient, type JobClientOptions } from './job';

/** Options of {@link SluiceClient}: shared by every orchestration. */
export type SluiceClientOptions = JobClientOptions;

/**
 * What pipelines import: `sluice.job` runs single remote jobs durably (batches and the endpoint
 * scaler join it as `sluice.batch` and `sluice.scaling`).
 */
export class SluiceClient {
  /** Single remote jobs through the job workflow. */
  readonly job: JobClient;

  constructor(options: SluiceClientOptions) {
    this.job = new JobClient(options);
  }
}
