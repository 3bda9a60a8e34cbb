/** A connected client for the CLI's job, batch and scale commands, from the resolved settings. */
import { Client, Connection } from '@temporalio/client';
import { GraphqlClient, QueueClient } from '../../platform-api';
import { resultsUrlOf } from '../../config/settings';
import { temporalConnectOptions } from '../../config/temporal';
import { payloadDataConverter } from '../../config/payload-keys';
import { BatchClient } from '../batch';
import { JobClient } from '../job';
import { PipelineClient } from '../pipeline';
import { ScalerClient } from '../scaler';
import { clientTracing } from '../tracing';
import { UsageError } from './errors';
import { describeSource, resolveSettings, type CliSettings } from './settings';

/** What a job command works with; `close()` releases every connection. */
export interface CliContext {
  settings: CliSettings;
  sluice: JobClient;
  /** The batch commands' client, on the same connection. */
  batch: BatchClient;
  /** The scale commands' client (scalers and schedules), on the same connection. */
  scaler: ScalerClient;
  /** The pipeline commands' client, on the same connection. */
  pipeline: PipelineClient;
  /** Absent without a GraphQL URL and API key: endpoints cannot be looked up by name. */
  graphql?: GraphqlClient;
  /** The service's queue API (`/health`); absent without a queue URL and API key. */
  queue?: QueueClient;
  close(): Promise<void>;
}

/** Connects to Temporal (and the service, when its URL and key are set) with the settings of `dataDir` (or those given). */
export async function connectCli(
  dataDir: string,
  settings: CliSettings = resolveSettings(dataDir),
): Promise<CliContext> {
  const c = settings.config;
  // The payload keys (SLUICE_PAYLOAD_KEY_FILE) before connecting: a bad key file is a ConfigError.
  const dataConverter = payloadDataConverter(c);
  const connection = await Connection.connect({ ...temporalConnectOptions(c.temporal), connectTimeout: 5000 }).catch(
    (err: Error) => {
      throw new Error(
        `cannot reach Temporal at ${c.TEMPORAL_ADDRESS} (${err.message}); ${describeSource(settings)}. Is \`sluice dev\` running (with this --data-dir), or TEMPORAL_ADDRESS set?`,
      );
    },
  );
  // Traces when OTEL_EXPORTER_OTLP_ENDPOINT is set: the command's workflow calls join the daemon's trace.
  const tracing = clientTracing(process.env, 'sluice-cli');
  const client = new Client({
    connection,
    namespace: c.temporal.namespace,
    dataConverter,
    interceptors: tracing.interceptors,
  });
  const queue =
    c.SLUICE_QUEUE_URL && c.SLUICE_API_KEY
      ? new QueueClient({ baseUrl: c.SLUICE_QUEUE_URL, apiKey: c.SLUICE_API_KEY, retry: { maxAttempts: 2 } })
      : undefined;
  const graphql =
    c.SLUICE_GRAPHQL_URL && c.SLUICE_API_KEY
      ? new GraphqlClient({ url: c.SLUICE_GRAPHQL_URL, apiKey: c.SLUICE_API_KEY, retry: { maxAttempts: 2 } })
      : undefined;
  const store = { resultsDir: c.SLUICE_RESULTS_DIR, resultsUrl: resultsUrlOf(c) };
  const sluice = new JobClient({ client, taskQueue: c.SLUICE_TASK_QUEUE, ...store, ...(queue ? { queue } : {}) });
  const batch = new BatchClient({ client, taskQueue: c.SLUICE_TASK_QUEUE, ...store });
  const scaler = new ScalerClient({ client, taskQueue: c.SLUICE_TASK_QUEUE, ...store });
  const pipeline = new PipelineClient({ client, taskQueue: c.SLUICE_TASK_QUEUE, ...store });
  return {
    settings,
    ...(graphql ? { graphql } : {}),
    ...(queue ? { queue } : {}),
    sluice,
    batch,
    scaler,
    pipeline,
    close: async () => {
      await Promise.all([sluice.close(), batch.close(), scaler.close(), pipeline.close()]);
      await queue?.close();
      await graphql?.close();
      await connection.close();
      await tracing.shutdown();
    },
  };
}

/**
 * Connects, runs `fn` on one orchestration's client when workflow `id` exists (otherwise
 * `no <noun> <id>`, a usage error: exit 2), and closes the connection on every path.
 */
export async function withExisting<C extends { exists(id: string): Promise<boolean> }>(
  dataDir: string,
  id: string,
  noun: string,
  pick: (cli: CliContext) => C,
  fn: (client: C, id: string) => Promise<number>,
): Promise<number> {
  const cli = await connectCli(dataDir);
  try {
    const client = pick(cli);
    if (!(await client.exists(id))) throw new UsageError(`no ${noun} ${id}`);
    return await fn(client, id);
  } finally {
    await cli.close();
  }
}
