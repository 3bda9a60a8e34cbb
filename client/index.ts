/**
 * The sluice library for pipelines (`import { SluiceClient } from 'sluice'`); the CLI lives apart in client/cli/.
 * Files: sluice.ts (SluiceClient, one member per orchestration), base.ts (what the clients share),
 * job.ts (JobClient), batch.ts (BatchClient), batch-rerun.ts (re-running a batch's failed inputs),
 * scaler.ts (ScalerClient), scaler-schedules.ts (the scaler's schedules; scaler-schedule-spec.ts what one is), pipeline.ts (PipelineClient), endpoints.ts (an endpoint
 * by name or id), failures.ts (a workflow failure's type and message), tracing.ts (OpenTelemetry client interceptors),
 * payloads.ts (a start input or a heartbeat read from Temporal, decoded through the client's codecs).
 */
export { SluiceClient, type SluiceClientOptions } from './sluice';
export { JobClient, type JobClientOptions, type JobView } from './job';
export { BatchClient, type BatchClientOptions, type BatchStart, type BatchView } from './batch';
export { BatchRerunError, type BatchRerun, type BatchRerunRefusal, type RerunFailedOptions } from './batch-rerun';
export { ScalerClient, type ScalerClientOptions, type ScalerView } from './scaler';
export { ScalerSchedules, ScalerScheduleError } from './scaler-schedules';
export {
  PipelineClient,
  PipelineDefinitionError,
  type PipelineListing,
  type PipelineStart,
  type PipelineView,
} from './pipeline';
export { failureMessage, failureType } from './failures';
export { resolveEndpoint } from './endpoints';
/** Traces: `new Client({ connection, interceptors: clientTracing().interceptors })` (docs/operations.md). */
export { clientTracing, type ClientTracing } from './tracing';
/** Payload encryption: pass `payloadDataConverter(process.env)` as your Temporal Client's `dataConverter`. */
export { payloadDataConverter, loadPayloadKeys } from '../config/payload-keys';
export { AesGcmPayloadCodec, type PayloadKeys } from '../common/payload-codec';
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
