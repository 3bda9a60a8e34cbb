/** The sluice library for pipelines (`import { SluiceClient } from 'sluice'`); the CLI lives apart in client/cli/. */
export { SluiceClient, type SluiceClientOptions } from './sluice';
export { JobClient, type JobClientOptions, type JobView } from './job';
export { BatchClient, type BatchClientOptions, type BatchStart, type BatchView } from './batch';
export { BatchRetryError, type BatchRetry, type BatchRetryRefusal, type RetryFailedOptions } from './batch-retry';
export { ScalerClient, type ScalerClientOptions, type ScalerView } from './scaler';
export { ScalerSchedules, ScalerScheduleError } from './scaler-schedules';
export { failureMessage, failureType } from './failures';
export { resolveEndpoint } from './endpoints';
export type {
  JobOptionsInput,
  JobWorkflowInputInit,
  JobWorkflowResult,
  JobWorkflowState,
  OutputRef,
  ScalerScheduleInit,
  ScalerScheduleView,
  ScaleWindowResult,
} from '../contracts';
