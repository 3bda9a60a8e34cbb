/**
 * The composition root: `startDaemon` builds the daemon step by step (results store, HTTP server,
 * service clients, Temporal connections, webhook hub, worker, /metrics watch, rate share) and stops
 * it in reverse. It and its steps (worker/daemon-*.ts) are the only importers of activities/.
 */
import { type Client } from '@temporalio/client';
import { type NativeConnection } from '@temporalio/worker';
import { type Logger } from 'pino';
import { type RateBudget, type RateBudgetOptions } from '../platform-api';
import { createLogger } from '../common/logger';
import { type Tracing } from '../common/tracing';
import { type DaemonConfig } from './config';
import { payloadDataConverter } from '../config/payload-keys';
import { codecEndpoint } from './codec-route';
import { serviceClients } from './daemon-clients';
import { daemonHub } from './daemon-hub';
import { startLoops } from './daemon-loops';
import { type DaemonParts } from './daemon-parts';
import { listenDaemonServer, type DaemonServer } from './daemon-server';
import { openStore } from './daemon-store';
import { daemonIdentity } from './daemon-identity';
import { createDaemonWorker } from './daemon-worker';
import { temporalStopping } from './runtime';
import { DaemonMetrics } from './metrics';
import { type RateShare } from './rate-share';
import { reapDeadDaemons } from './reap';
import { daemonConnections, type DaemonConnections } from './temporal';
import { type WebhookHub } from './webhook-hub';

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
  const http = await listenDaemonServer({
    config,
    logger,
    metrics,
    ...(o.temporalMetricsUrl ? { temporalMetricsUrl: o.temporalMetricsUrl } : {}),
    ...(codec ? { codec } : {}),
  });
  const { url, health, live } = http;
  const clients = serviceClients(config, metrics, o.rateBudget);
  // The queue client's transport loads while Temporal connects: a restarted daemon's first `/run`
  // (its first step's) loaded it on a CPU-starved machine (0.24 s of CPU, 0.3-0.6 s to the answer at load 8-11),
  // and loaded at the start it is in the start's code cache (client/cli/worker.ts flushCodeCache).
  clients.queue.warm();
  const temporal = await daemonConnections(config, dataConverter, o);
  const { client, connection } = temporal;
  // Unique per daemon (two in one process too): the rate share counts daemons by poller identity.
  const identity = daemonIdentity(http.port);
  const parts: DaemonParts = { config, logger, metrics, store, health, client, clients, identity };
  // The activities a daemon of this host left started when it was killed are retried now, not at
  // their timeouts: begun before the worker is built (its bundle, its workflow thread), their retries
  // wait for its first poll.
  void reapDeadDaemons({
    client,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.SLUICE_TASK_QUEUE,
    identity,
    logger,
    reaped: (n) => metrics.reaped(n),
  });
  const { hub, inbox } = await daemonHub(parts, url);
  live.hub = hub;
  const { worker, tracing } = await createDaemonWorker(parts, { connection, dataConverter, hub, inbox });
  live.worker = worker;
  const loops = startLoops(parts);
  /** The stop begins (a close, or the worker ended by itself): the server may be gone, which is no error now. */
  const stopping = (): void => {
    temporalStopping();
    loops.stop();
    temporal.stop();
  };
  const done = worker.run().finally(async () => {
    stopping();
    await closeDaemon(parts, { hub, http, temporal, tracing });
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
    budget: clients.budget,
    ...(loops.share ? { share: loops.share } : {}),
    close: async () => {
      stopping();
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

/** What the daemon closes once its worker stopped, beyond its parts (the store, the service clients). */
interface Closing {
  hub: WebhookHub;
  http: DaemonServer;
  temporal: DaemonConnections;
  tracing: Tracing | undefined;
}

/** Closes the daemon once the worker polls no more: the waits held here handed over first, the traces flushed last. */
async function closeDaemon(p: DaemonParts, c: Closing): Promise<void> {
  // The worker polls no more: the waits held here go back to Temporal for another daemon.
  const handedOver = await c.hub.handOver();
  if (handedOver > 0) p.logger.info({ handedOver }, 'webhook waits handed over');
  await p.clients.close();
  await c.http.close();
  await c.temporal.close();
  await p.store.close();
  await c.tracing?.shutdown().catch(() => undefined);
}
