import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { type Client } from '@temporalio/client';
import { type NativeConnection, Worker } from '@temporalio/worker';
import { type Logger } from 'pino';
import { createJobActivities } from '../activities/job-activities';
import { createBatchActivities } from '../activities/batch-activities';
import { createScalingActivities, graphqlUrlFor } from '../activities/scaling-activities';
import { backlogScanner } from '../activities/scaling-backlog';
import { MemoryInbox } from '../activities/batch/inbox';
import { FsResultsStore } from '../activities/results-store';
import { GraphqlClient, QueueClient, RestClient } from '../platform-api';
import { endpointPrice, restUrlFor } from '../activities/endpoint-price';
import { createLogger } from '../common/logger';
import { workflowBundle } from './bundle';
import { type DaemonConfig } from './config';
import { createDaemonServer } from './http-server';
import { DaemonMetrics } from './metrics';
import { connectClient, connectWorker } from './temporal';
import { WebhookHub } from './webhook-hub';

/** Options of {@link startDaemon}. */
export interface DaemonOptions {
  config: DaemonConfig;
  logger?: Logger;
  /** Existing connections (tests); created from the config otherwise. */
  connection?: NativeConnection;
  client?: Client;
  /** Temporal runtime's Prometheus endpoint, merged into /metrics. */
  temporalMetricsUrl?: string;
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
}

/** The webhook secret: configured, or generated once and kept in the results dir. */
function webhookSecret(config: DaemonConfig, dir: string): string {
  if (config.SLUICE_WEBHOOK_SECRET) return config.SLUICE_WEBHOOK_SECRET;
  const file = join(dir, '.webhook-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/** Starts the worker daemon: Temporal worker, webhook receiver, health and metrics. */
export async function startDaemon(o: DaemonOptions): Promise<Daemon> {
  const { config } = o;
  const logger = o.logger ?? createLogger('daemon');
  const resultsDir = resolve(config.SLUICE_RESULTS_DIR);
  const store = new FsResultsStore(resultsDir);
  const metrics = new DaemonMetrics();
  // The HTTP server starts first (its port is part of the webhook URL); these are filled in after.
  const live: { hub?: WebhookHub; worker?: Worker } = {};
  const server = createDaemonServer({
    hub: () => live.hub, metrics, logger, ready: () => live.worker?.getState() === 'RUNNING',
    ...(o.temporalMetricsUrl ? { temporalMetricsUrl: o.temporalMetricsUrl } : {}),
  });
  await new Promise<void>((r, j) => server.once('error', j).listen(config.SLUICE_DAEMON_PORT, config.SLUICE_DAEMON_HOST, r));
  const addr = server.address() as AddressInfo;
  const url = `http://${config.SLUICE_DAEMON_HOST}:${addr.port}`;

  const queue = new QueueClient({ baseUrl: config.SLUICE_QUEUE_URL, apiKey: config.SLUICE_API_KEY, rateBudget: { scale: config.SLUICE_RATE_SCALE } });
  const rest = new RestClient({ baseUrl: restUrlFor(config.SLUICE_QUEUE_URL, config.SLUICE_REST_URL), apiKey: config.SLUICE_API_KEY, retry: { maxAttempts: 2 } });
  const price = endpointPrice(rest);
  // The scaler reads and writes bounds over GraphQL (saveEndpoint).
  const graphql = new GraphqlClient({ url: graphqlUrlFor(config.SLUICE_QUEUE_URL, config.SLUICE_GRAPHQL_URL), apiKey: config.SLUICE_API_KEY });
  const client = o.client ?? (await connectClient(config));
  const connection = o.connection ?? (await connectWorker(config));
  const inbox = new MemoryInbox();
  const hub = (live.hub = new WebhookHub({
    secret: webhookSecret(config, resultsDir), publicUrl: config.SLUICE_PUBLIC_URL ?? url, client, store, queue, logger, metrics, inbox,
    fallbackFirstMs: config.SLUICE_WEBHOOK_FALLBACK_MS,
  }));
  const worker = (live.worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.SLUICE_TASK_QUEUE,
    workflowBundle: await workflowBundle(),
    activities: {
      ...createJobActivities({ queue, store, hub, metrics }), ...createBatchActivities({ queue, store, hub, inbox, metrics, price }),
      ...createScalingActivities({ queue, graphql, price, metrics, backlogs: backlogScanner(client) }),
    },
    maxConcurrentActivityTaskExecutions: config.SLUICE_MAX_CONCURRENT_ACTIVITIES,
    shutdownGraceTime: config.SLUICE_SHUTDOWN_GRACE_MS,
  }));
  const done = worker.run().finally(async () => {
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
    if (!o.client) await client.connection.close();
  });
  logger.info({ url, taskQueue: config.SLUICE_TASK_QUEUE, temporal: config.TEMPORAL_ADDRESS, namespace: config.TEMPORAL_NAMESPACE }, 'daemon running');
  return {
    url, hub, metrics, done,
    close: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
