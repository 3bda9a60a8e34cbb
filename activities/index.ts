/** Temporal activities of sluice: all I/O of the job workflow, created with injected dependencies (the daemon builds them). */
export * from './job/activities';
export * from './errors';
