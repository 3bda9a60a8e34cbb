/** Workflows of sluice, bundled for the Temporal worker. Deterministic code only. */
export { jobWorkflow, stateQuery } from './job';
export {
  batchWorkflow,
  batchStateQuery,
  pauseUpdate,
  resumeUpdate,
  configureUpdate,
  feedSignal,
} from './batch/workflow';
export {
  scalerWorkflow,
  scalerStateQuery,
  overrideUpdate,
  clearOverrideUpdate,
  pauseScalerUpdate,
  resumeScalerUpdate,
  configureScalerUpdate,
  setWindowUpdate,
  backlogUpdate,
  backlogSignal,
} from './scaler/workflow';
export { scaleWindowWorkflow } from './scaler/window';
export { pipelineWorkflow, pipelineStateQuery, pausePipelineUpdate, resumePipelineUpdate } from './pipeline/workflow';
