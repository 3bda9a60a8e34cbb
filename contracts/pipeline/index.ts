/** Pipelines (the fourth orchestration): the definition, its validation and its expressions' evaluation. */
export * from './definition';
export * from './errors';
export * from './expressions';
export * from './json-value';
export * from './validate';
export * from './run';
