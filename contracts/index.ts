/** Wire shapes of sluice: the one source of types. Workflow-safe (no Node, no I/O). */
export * from './limits';
export * from './json-depth';
export * from './queue';
export * from './input-line';
export * from './job';
export * from './worker-protocol';
export * from './catalog';
export * from './template';
export * from './endpoint';
export * from './endpoint-rest';
export * from './pod';
export * from './names';
export * from './batch';
export * from './scaler';
export * from './scaler-schedule';
export * from './pipeline';
