/** The daemon's clients of the service, shared by every workflow's activities: the queue (through one rate budget), REST (prices), GraphQL (the scaler's bounds). */
import { endpointPrice, restUrlFor } from '../activities/endpoint-price';
import { graphqlUrlFor } from '../activities/scaler/activities';
import {
  GraphqlClient,
  QueueClient,
  RateBudget,
  RestClient,
  type RateBudgetOptions,
  type RateLimitedEvent,
} from '../platform-api';
import { type DaemonConfig } from './config';
import { type DaemonMetrics } from './metrics';

/** The daemon's service clients and what it derives from them. */
export interface ServiceClients {
  /** The rate budget every batch step and job activity of every workflow submits through. */
  budget: RateBudget;
  queue: QueueClient;
  rest: RestClient;
  graphql: GraphqlClient;
  /** Endpoint prices, read over REST. */
  price: ReturnType<typeof endpointPrice>;
  /** Closes the three clients. */
  close(): Promise<void>;
}

/** Builds the daemon's service clients; `rateBudget` replaces the spec's limits and window (tests). */
export function serviceClients(
  config: DaemonConfig,
  metrics: DaemonMetrics,
  rateBudget?: Pick<RateBudgetOptions, 'limits' | 'windowMs' | 'marginMs'>,
): ServiceClients {
  // One budget per daemon: every batch step and job activity of every workflow submits through it.
  const budget = new RateBudget({ ...rateBudget, scale: config.SLUICE_RATE_SCALE ?? 1 });
  // Every 429 the daemon meets is counted, each attempt (calls retry theirs inside the client).
  const onRateLimited = (e: RateLimitedEvent): void => metrics.rateLimited(e.operation);
  const queue = new QueueClient({
    baseUrl: config.SLUICE_QUEUE_URL,
    apiKey: config.SLUICE_API_KEY,
    rateBudget: budget,
    onRateLimited,
  });
  const rest = new RestClient({
    baseUrl: restUrlFor(config.SLUICE_QUEUE_URL, config.SLUICE_REST_URL),
    apiKey: config.SLUICE_API_KEY,
    retry: { maxAttempts: 2 },
    onRateLimited,
  });
  const price = endpointPrice(rest);
  // The scaler reads and writes bounds over GraphQL (saveEndpoint).
  const graphql = new GraphqlClient({
    url: graphqlUrlFor(config.SLUICE_QUEUE_URL, config.SLUICE_GRAPHQL_URL),
    apiKey: config.SLUICE_API_KEY,
    onRateLimited,
  });
  return {
    budget,
    queue,
    rest,
    graphql,
    price,
    close: async () => {
      await queue.close();
      await rest.close();
      await graphql.close();
    },
  };
}
