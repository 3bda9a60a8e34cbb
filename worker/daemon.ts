import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type AddressInfo } from 'node:net';
import { type Client } from '@temporalio/client';
import { type NativeConnection, Worker } from '@temporalio/worker';
import { type Logger } from 'pino';
import { createJobActivities } from '../activities/job/activities';
import { createInputActivities } from '../activities/inputs';
import { createBatchActivities } from '../activities/batch/activities';
import { countedQueue } from '../activities/service-calls';
import { createPipelineActivities } from '../activities/pipeline/activities';
import { createScalerActivities, graphqlUrlFor } from '../activities/scaler/activities';
import { createScaleWindowActivities } from '../activities/scaler/window';
import { RUNNING_BATCHES, backlogScanner } from '../activities/scaler/backlog';
import { StoreInbox } from '../results/batch/store-inbox';
import { PriorityBoard } from '../activities/batch/priority-board';
import { type ObjectStore } from '../results/store/object-store';
import { checkConditionalWrites, openResultsStore } from '../results/store/open';
import {
  GraphqlClient,
  QueueClient,
  RateBudget,
  RestClient,
  type RateBudgetOptions,
  type RateLimitedEvent,
} from '../platform-api';
import { endpointPrice, restUrlFor } from '../activities/endpoint-price';
import { createLogger } from '../common/logger';
import { resultsUrlOf } from '../config/settings';
import { type BatchState } from '../contracts';
import { BATCH_QUERIES } from '../contracts/names';
import { type DaemonConfig } from './config';
import { ConfigError } from '../config/errors';
import { payloadDataConverter } from '../config/payload-keys';
import { batchRoots } from '../results/batch/roots';
import { codecEndpoint } from './codec-route';
import { createDaemonServer } from './http-server';
import { temporalStopping } from './runtime';
import { DaemonMetrics } from './metrics';
import { BatchMetrics } from './batch-metrics';
import { PipelineMetrics } from './pipeline-metrics';
import { ScalerMetrics } from './scaler-metrics';
import { watchOrchestrations } from './orchestration-watch';
import { workerTracing } from './tracing';
import { startRateShare, type RateShare } from './rate-share';
import { connectClient, connectWorker, type DaemonClient } from './temporal';
import { WebhookHub } from './webhook-hub';
import { webhookHealth, webhooksDetail } from './webhook-watch';
import { sharedWebhookSecret } from './webhook-secret';

/** Options of {@link startDaemon}. */
export interface DaemonOptions {
  config: DaemonConfig;
  logger?: Logger;
  /** Existing connections (tests); created from the config otherwise. */
  connection?: NativeConnection;
  client?: Client;
  /** Temporal runtime's Prometheus endpoint, merged into /metrics. */
  temporalMetricsUrl?: string;
  /** Limits and window of the rate budget instead of the spec's (tests against a platform with lowered limits). */
  rateBudget?: Pick<RateBudgetOptions, 'limits' | 'windowMs' | 'marginMs'>;
}

/** A running daemon. */
export interface Daemon {
  /** Base URL of the daemon's HTTP server (webhooks, health, metrics). */
  url: string;
  hub: WebhookHub;
  metrics: DaemonMetrics;
  /** Stops polling, lets in-flight activities finish (up to the grace time), closes everything. */
  close(): Promise<void>;
  /** Resolves when the worker stops (after close, or on a fatal error). */
  done: Promise<void>;
  /** The rate budget shared by every workflow's activities on this daemon. */
  budget: RateBudget;
  /** This daemon's share of the rate among the daemons of its task queue (absent with SLUICE_RATE_SCALE). */
  share?: RateShare;
}

/**
 * The results store of SLUICE_RESULTS_URL (else SLUICE_RESULTS_DIR). On S3 it must honour
 * conditional writes (journals and appends rely on them): checked here, or the daemon refuses to start.
 */
async function openStore(config: DaemonConfig): Promise<ObjectStore> {
  const url = resultsUrlOf(config);
  const variable = config.SLUICE_RESULTS_URL !== undefined ? 'SLUICE_RESULTS_URL' : 'SLUICE_RESULTS_DIR';
  let store: ObjectStore | undefined;
  try {
    store = openResultsStore(url);
    if (store.kind === 's3') await checkConditionalWrites(store);
    return store;
  } catch (err) {
    await store?.close().catch(() => undefined);
    const hint = url.startsWith('s3://')
      ? ' (endpoint and credentials: AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)'
      : '';
    throw new ConfigError([
      {
        variable,
        message: `the results store ${url} cannot be used: ${(err as Error).message || (err as Error).name}${hint}`,
      },
    ]);
  }
}

/** Starts the worker daemon: Temporal worker, webhook receiver, health and metrics. */
export async function startDaemon(o: DaemonOptions): Promise<Daemon> {
  const { config } = o;
  const logger = o.logger ?? createLogger('daemon');
  // Payload keys first: a bad key file stops the daemon before it opens anything.
  const dataConverter = payloadDataConverter(config);
  const codec = codecEndpoint(config, dataConverter);
  const store = await openStore(config);
  const metrics = new DaemonMetrics();
  metrics.observeStore(store.stats);
  const base: { url?: string } = {};
  const health = webhookHealth(logger, () => config.SLUICE_PUBLIC_URL ?? base.url ?? '');
  metrics.observeWebhooks(health);
  // The HTTP server starts first (its port is part of the webhook URL); these are filled in after.
  const live: { hub?: WebhookHub; worker?: Worker } = {};
  const server = createDaemonServer({
    hub: () => live.hub,
    metrics,
    logger,
    ready: () => live.worker?.getState() === 'RUNNING',
    detail: () => ({ webhooks: webhooksDetail(health) }),
    ...(o.temporalMetricsUrl ? { temporalMetricsUrl: o.temporalMetricsUrl } : {}),
    ...(codec ? { codec } : {}),
  });
  await new Promise<void>((r, j) =>
    server.once('error', j).listen(config.SLUICE_DAEMON_PORT, config.SLUICE_DAEMON_HOST, r),
  );
  const addr = server.address() as AddressInfo;
  const url = (base.url = `http://${config.SLUICE_DAEMON_HOST}:${addr.port}`);

  // One budget per daemon: every batch step and job activity of every workflow submits through it.
  const budget = new RateBudget({ ...o.rateBudget, scale: config.SLUICE_RATE_SCALE ?? 1 });
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
  const own: DaemonClient | undefined = o.client ? undefined : await connectClient(config, dataConverter);
  const client = o.client ?? own!.client;
  const connection = o.connection ?? (await connectWorker(config));
  // Unique per daemon (two in one process too): the rate share counts daemons by poller identity.
  const identity = `${process.pid}@${hostname()}:${addr.port}`;
  // Batch webhooks go to the results store, where any daemon's step takes them.
  const inbox = new StoreInbox({ store, daemonId: `${identity}-${randomBytes(3).toString('hex')}` });
  const hub = (live.hub = new WebhookHub({
    secret: await sharedWebhookSecret(config.SLUICE_WEBHOOK_SECRET, store),
    publicUrl: config.SLUICE_PUBLIC_URL ?? url,
    client,
    store,
    // Counted like the activities' calls: a webhook's /status and the fallback polls are HTTP calls too.
    queue: countedQueue(queue, metrics),
    logger,
    metrics,
    inbox,
    health,
    fallbackFirstMs: config.SLUICE_WEBHOOK_FALLBACK_MS,
    confirm: config.SLUICE_WEBHOOK_CONFIRM,
  }));
  // Where batches (and per-job children reading their lines) may read and write.
  const roots = batchRoots(config.SLUICE_BATCH_ROOTS, resultsUrlOf(config));
  // Traces when OTEL_EXPORTER_OTLP_ENDPOINT is set: the interceptors, their sink, their bundle.
  const traces = await workerTracing(config);
  const worker = (live.worker = await Worker.create({
    connection,
    identity,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.SLUICE_TASK_QUEUE,
    ...traces.options,
    dataConverter,
    activities: {
      ...createJobActivities({ queue, store, hub, metrics, roots }),
      ...createBatchActivities({
        queue,
        store,
        hub,
        inbox,
        metrics,
        price,
        health,
        board: new PriorityBoard(),
        roots,
      }),
      ...createScalerActivities({ queue, graphql, price, metrics, backlogs: backlogScanner(client) }),
      ...createScaleWindowActivities({ client, graphql }),
      ...createInputActivities(),
      ...createPipelineActivities({
        store,
        roots,
        queue,
        batchSpend: async (id) => (await client.workflow.getHandle(id).query<BatchState>(BATCH_QUERIES.state)).spend,
      }),
    },
    maxConcurrentActivityTaskExecutions: config.SLUICE_MAX_CONCURRENT_ACTIVITIES,
    shutdownGraceTime: config.SLUICE_SHUTDOWN_GRACE_MS,
  }));
  // The batch, pipeline and scaler series of /metrics: their workflows' states, asked every interval.
  const watch = watchOrchestrations({
    client,
    batches: new BatchMetrics(metrics.registry, { retentionMs: config.SLUICE_METRICS_RETENTION_MS }),
    pipelines: new PipelineMetrics(metrics.registry, { retentionMs: config.SLUICE_METRICS_RETENTION_MS }),
    scalers: new ScalerMetrics(metrics.registry),
    logger,
    runningBatches: RUNNING_BATCHES,
    intervalMs: config.SLUICE_METRICS_INTERVAL_MS,
    maxBatches: config.SLUICE_METRICS_MAX_BATCHES,
  });
  const share =
    config.SLUICE_RATE_SCALE === undefined
      ? startRateShare({
          client,
          namespace: config.TEMPORAL_NAMESPACE,
          taskQueue: config.SLUICE_TASK_QUEUE,
          identity,
          budget,
          logger,
        })
      : undefined;
  /** The stop begins (a close, or the worker ended by itself): the server may be gone, which is no error now. */
  const stopping = (): void => {
    temporalStopping();
    watch.stop();
    own?.stop();
    share?.stop();
  };
  const done = worker.run().finally(async () => {
    stopping();
    // The worker polls no more: the waits held here go back to Temporal for another daemon.
    const handedOver = await hub.handOver();
    if (handedOver > 0) logger.info({ handedOver }, 'webhook waits handed over');
    await queue.close();
    await rest.close();
    await graphql.close();
    await new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
    if (!o.connection) await connection.close();
    await own?.close();
    await store.close();
    await traces.tracing?.shutdown().catch(() => undefined);
  });
  logger.info(
    {
      url,
      taskQueue: config.SLUICE_TASK_QUEUE,
      temporal: config.TEMPORAL_ADDRESS,
      namespace: config.TEMPORAL_NAMESPACE,
    },
    'daemon running',
  );
  return {
    url,
    hub,
    metrics,
    done,
    budget,
    ...(share ? { share } : {}),
    close: async () => {
      stopping();
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
