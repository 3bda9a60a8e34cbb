/**
 * A connected client for the CLI's job, batch, scaler and pipeline commands, from the resolved
 * settings: only the clients a command names are loaded (issue 23: a `status` never loads the
 * batch engine's modules, the service's HTTP clients or OpenTelemetry's SDK).
 */
import { Client, Connection } from '@temporalio/client';
import { type GraphqlClient, type QueueClient } from '../../platform-api';
import { resultsUrlOf } from '../../config/settings';
import { temporalConnectOptions } from '../../config/temporal';
import { payloadDataConverter } from '../../config/payload-keys';
import { tracesUrl, otlpEndpoints } from '../../common/traces-url';
import { type BatchClient } from '../batch';
import { type ClientOptions } from '../base';
import { type JobClient } from '../job';
import { type PipelineClient } from '../pipeline';
import { type ScalerClient } from '../scaler';
import { graphqlOptionsOf, lookupClient } from './service-clients';
import { UsageError } from './errors';
import { describeSource, resolveSettings, type CliSettings } from './settings';

/** The orchestrations' clients, on one connection. */
export interface CliClients {
  job: JobClient;
  /** The batch commands' client. */
  batch: BatchClient;
  /** The scale commands' client (scalers and schedules). */
  scaler: ScalerClient;
  /** The pipeline commands' client. */
  pipeline: PipelineClient;
}

/**
 * What a command uses: orchestrations' clients, and `service` for the service's GraphQL and queue
 * clients, or `lookup` for the GraphQL client alone (an endpoint's lookup: Node's own http, npm's
 * undici not loaded; the queue client, if any, made at its first call).
 */
export type CliUse = keyof CliClients | 'service' | 'lookup';

/** Every client (the console's and the daemon's needs). */
export const ALL_CLIENTS = ['job', 'batch', 'scaler', 'pipeline', 'service'] as const satisfies readonly CliUse[];

/** What a command works with: the clients of its `uses`; `close()` releases every connection. */
export type CliContext<U extends CliUse = CliUse> = Pick<CliClients, Extract<U, keyof CliClients>> & {
  settings: CliSettings;
  /** With `service` or `lookup` in the uses; absent without a GraphQL URL and API key: endpoints cannot be looked up by name. */
  graphql?: GraphqlClient;
  /** With `service` in the uses: the service's queue API (`/health`); absent without a queue URL and API key. */
  queue?: QueueClient;
  close(): Promise<void>;
};

/** Each client's module, loaded when a command uses it. */
const CLIENTS: {
  [K in keyof CliClients]: (o: ClientOptions & { queue?: Pick<QueueClient, 'status'> }) => Promise<CliClients[K]>;
} = {
  job: async (o) => new (await import('../job')).JobClient(o),
  batch: async (o) => new (await import('../batch')).BatchClient(o),
  scaler: async (o) => new (await import('../scaler')).ScalerClient(o),
  pipeline: async (o) => new (await import('../pipeline')).PipelineClient(o),
};

/** The service's clients, when their URL and key are set (platform-api loads undici: only for a command that uses them). */
async function serviceClients(c: CliSettings['config'], uses: readonly CliUse[]) {
  const retry = { maxAttempts: 2 };
  const api = async () => import('../../platform-api');
  const eager = uses.includes('service');
  const graphqlOptions = graphqlOptionsOf(c);
  const graphql = !graphqlOptions
    ? undefined
    : eager
      ? new (await api()).GraphqlClient(graphqlOptions)
      : uses.includes('lookup')
        ? await lookupClient(c)
        : undefined;
  if (!c.SLUICE_QUEUE_URL || !c.SLUICE_API_KEY) return { graphql };
  const o = { baseUrl: c.SLUICE_QUEUE_URL, apiKey: c.SLUICE_API_KEY, retry };
  if (eager) return { graphql, queue: new (await api()).QueueClient(o) };
  // A job's live status reads the queue only while the job runs: the client is made at that first call.
  let made: Promise<QueueClient> | undefined;
  const queue = () => (made ??= api().then((m) => new m.QueueClient(o)));
  return {
    graphql,
    lazyQueue: {
      status: async (endpointId: string, jobId: string) => (await queue()).status(endpointId, jobId),
      close: async () => (made ? (await made).close() : undefined),
    },
  };
}

/** What a command can use of the service while Temporal connects (see `meanwhile` of {@link connectCli}). */
export type ServicePart = Pick<CliContext, 'settings' | 'graphql'>;

/**
 * Connects to Temporal (and the service, when its URL and key are set) with the settings of `dataDir`
 * (or those given), loading the clients of `uses`. `meanwhile` is called with the service's clients
 * before Temporal's connection is made: a command's lookup there overlaps the connect.
 */
export async function connectCli<U extends CliUse>(
  dataDir: string,
  uses: readonly U[],
  settings: CliSettings = resolveSettings(dataDir),
  meanwhile?: (service: ServicePart) => void,
): Promise<CliContext<U>> {
  const c = settings.config;
  // The payload keys (SLUICE_PAYLOAD_KEY_FILE) before connecting: a bad key file is a ConfigError.
  const dataConverter = payloadDataConverter(c);
  const { graphql, queue, lazyQueue } = await serviceClients(c, uses);
  const closeService = async (): Promise<void> => {
    await Promise.all([queue?.close(), lazyQueue?.close(), graphql?.close()]);
  };
  meanwhile?.({ settings, ...(graphql ? { graphql } : {}) });
  const connection = await Connection.connect({ ...temporalConnectOptions(c.temporal), connectTimeout: 5000 }).catch(
    async (err: Error) => {
      await closeService();
      throw new Error(
        `cannot reach Temporal at ${c.TEMPORAL_ADDRESS} (${err.message}); ${describeSource(settings)}. Is \`sluice dev\` running (with this --data-dir), or TEMPORAL_ADDRESS set?`,
      );
    },
  );
  // Traces when OTEL_EXPORTER_OTLP_ENDPOINT is set: the command's workflow calls join the daemon's trace.
  const tracing = tracesUrl(otlpEndpoints(process.env))
    ? (await import('../tracing')).clientTracing(process.env, 'sluice-cli')
    : undefined;
  const client = new Client({
    connection,
    namespace: c.temporal.namespace,
    dataConverter,
    interceptors: tracing?.interceptors ?? {},
  });
  const options = {
    client,
    taskQueue: c.SLUICE_TASK_QUEUE,
    resultsDir: c.SLUICE_RESULTS_DIR,
    resultsUrl: resultsUrlOf(c),
    ...(queue || lazyQueue ? { queue: queue ?? lazyQueue } : {}),
  };
  const names = uses.filter((u): u is Extract<U, keyof CliClients> => u !== 'service' && u !== 'lookup');
  const clients = await Promise.all(names.map(async (name) => [name, await CLIENTS[name](options)] as const));
  return {
    ...(Object.fromEntries(clients) as Pick<CliClients, Extract<U, keyof CliClients>>),
    settings,
    ...(graphql ? { graphql } : {}),
    ...(queue ? { queue } : {}),
    close: async () => {
      await Promise.all(clients.map(([, client]) => client.close()));
      await closeService();
      await connection.close();
      await tracing?.shutdown();
    },
  };
}

/**
 * Connects, runs `fn` on one orchestration's client when workflow `id` exists (otherwise
 * `no <noun> <id>`, a usage error: exit 2), and closes the connection on every path.
 */
export async function withExisting<K extends keyof CliClients>(
  dataDir: string,
  id: string,
  noun: string,
  use: K,
  fn: (client: CliClients[K], id: string) => Promise<number>,
): Promise<number> {
  const cli = await connectCli(dataDir, [use]);
  try {
    const client = (cli as unknown as CliClients)[use];
    if (!(await client.exists(id))) throw new UsageError(`no ${noun} ${id}`);
    return await fn(client, id);
  } finally {
    await cli.close();
  }
}
