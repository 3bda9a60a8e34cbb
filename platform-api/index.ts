/** Typed clients of the platform: the queue API (`/v2/{endpointId}/...`), the GraphQL and the REST control plane. */
export * from './errors';
export * from './http';
export * from './http-failures';
export * from './retry';
export * from './rate-budget';
export * from './sleep';
export * from './validate';
export * from './queue-client';
export * from './graphql-client';
export * from './rest-client';
