/** Temporal activities of sluice: all I/O of the job workflow, created with injected dependencies. */
export * from './job/activities';
export * from './completion-hub';
export * from './errors';
export * from './metrics';
export * from './outcome';
export * from '../results/store/object-store';
export { checkConditionalWrites, openResultsStore } from '../results/store/open';
