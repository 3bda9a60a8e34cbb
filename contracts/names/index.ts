/** Zod-free names shared across the workflow boundary: the only values workflows import from contracts/. */
export * from './common';
export * from './failures';
export * from './job';
export * from './results';
export * from './batch';
export * from './scaler';
export * from './pipeline';
