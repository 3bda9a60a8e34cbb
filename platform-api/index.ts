/** Typed client of the platform's queue API (RunPod-compatible `/v2/{endpointId}/...`). */
export * from './errors';
export * from './http';
export * from './retry';
export * from './rate-budget';
export * from './sleep';
export * from './validate';
export * from './queue-client';
