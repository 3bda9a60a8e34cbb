/** The daemon's HTTP server, listening first (its port is part of the webhook URL): the hub and the worker it serves are filled in once built. */
import { type AddressInfo } from 'node:net';
import { type Worker } from '@temporalio/worker';
import { type Logger } from 'pino';
import { type WebhookHealth } from '../results/webhook-health';
import { type DaemonConfig } from './config';
import { createDaemonServer, type DaemonHttpDeps } from './http-server';
import { type DaemonMetrics } from './metrics';
import { type WebhookHub } from './webhook-hub';
import { webhookHealth, webhooksDetail } from './webhook-watch';

/** What {@link listenDaemonServer} serves from. */
export interface DaemonServerOptions extends Pick<DaemonHttpDeps, 'codec' | 'temporalMetricsUrl'> {
  config: DaemonConfig;
  logger: Logger;
  metrics: DaemonMetrics;
}

/** The daemon's HTTP server, listening. */
export interface DaemonServer {
  /** Base URL of the server: `http://SLUICE_DAEMON_HOST:<port>`. */
  url: string;
  port: number;
  /** Whether webhooks reach the daemon (in /metrics and /readyz). */
  health: WebhookHealth;
  /** What the server serves, set once built: it answers without them meanwhile (not ready). */
  live: { hub?: WebhookHub; worker?: Worker };
  /** Closes the server and every connection still open. */
  close(): Promise<void>;
}

/** Starts the daemon's HTTP server (webhooks, health, readiness, metrics, codec) on SLUICE_DAEMON_HOST:PORT. */
export async function listenDaemonServer(o: DaemonServerOptions): Promise<DaemonServer> {
  const { config, logger, metrics } = o;
  const base: { url?: string } = {};
  const health = webhookHealth(logger, () => config.SLUICE_PUBLIC_URL ?? base.url ?? '');
  metrics.observeWebhooks(health);
  const live: DaemonServer['live'] = {};
  const server = createDaemonServer({
    hub: () => live.hub,
    metrics,
    logger,
    ready: () => live.worker?.getState() === 'RUNNING',
    detail: () => ({ webhooks: webhooksDetail(health) }),
    ...(o.temporalMetricsUrl ? { temporalMetricsUrl: o.temporalMetricsUrl } : {}),
    ...(o.codec ? { codec: o.codec } : {}),
  });
  await new Promise<void>((r, j) =>
    server.once('error', j).listen(config.SLUICE_DAEMON_PORT, config.SLUICE_DAEMON_HOST, r),
  );
  const addr = server.address() as AddressInfo;
  const url = (base.url = `http://${config.SLUICE_DAEMON_HOST}:${addr.port}`);
  return {
    url,
    port: addr.port,
    health,
    live,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
