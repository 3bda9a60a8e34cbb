/** The daemon's HTTP server: webhooks, health, readiness, metrics and the codec endpoint, with timeouts on every connection. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request } from 'undici';
import { type Logger } from 'pino';
import { type DaemonMetrics } from './metrics';
import { type WebhookHub } from './webhook-hub';
import { sendJson as send, webhookRoute } from './webhook-route';

/** What the daemon's HTTP server serves. */
export interface DaemonHttpDeps {
  hub: () => WebhookHub | undefined;
  metrics: DaemonMetrics;
  logger: Logger;
  ready: () => boolean;
  /** Detail shown by /readyz (whether webhooks reach the daemon). */
  detail?: () => Record<string, unknown>;
  /** Temporal runtime's Prometheus endpoint, appended to /metrics. */
  temporalMetricsUrl?: string;
  /** The codec endpoint (worker/codec-route.ts), when SLUICE_CODEC_ENDPOINT is on. */
  codec?: (req: IncomingMessage, res: ServerResponse, action: string) => Promise<void>;
  /** Timeouts of the server's connections. */
  http?: DaemonHttpOptions;
}

/** Timeouts of the daemon's HTTP server (webhooks, health, metrics, codec), ms. */
export interface DaemonHttpOptions {
  /**
   * From a connection's first byte to the end of a request's headers.
   * @default 20000
   */
  headersTimeoutMs?: number;
  /**
   * To receive a whole request (the largest webhook body, 24 MB, at about 200 kB/s).
   * @default 120000
   */
  requestTimeoutMs?: number;
  /**
   * How long a kept-alive connection may stay idle between requests.
   * @default 65000
   */
  keepAliveTimeoutMs?: number;
  /**
   * A connection silent this long (no byte either way) is closed, whatever it is doing.
   * @default 120000
   */
  idleTimeoutMs?: number;
}

/**
 * The daemon's HTTP face: `POST /hooks/v2/<claims>/<sig>` (job webhooks: ./webhook-route.ts),
 * `/healthz`, `/readyz`, `/metrics`, and `/codec/{encode,decode}` when the codec endpoint is on.
 * Every connection is timed (DaemonHttpOptions): a client trickling its headers or body is dropped.
 */
export function createDaemonServer(d: DaemonHttpDeps): Server {
  const headersTimeout = d.http?.headersTimeoutMs ?? 20_000;
  const requestTimeout = d.http?.requestTimeoutMs ?? 120_000;
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      keepAliveTimeout: d.http?.keepAliveTimeoutMs ?? 65_000,
      // How often the two timeouts above are checked (Node's default is 30 s): well under the shorter.
      connectionsCheckingInterval: Math.max(100, Math.min(5000, Math.min(headersTimeout, requestTimeout) / 4)),
    },
    (req, res) => {
      route(d, req, res).catch((err: unknown) => {
        d.logger.error({ err }, 'daemon request failed');
        d.metrics.webhook('error');
        if (!res.headersSent) send(res, 500, { error: 'internal error' });
      });
    },
  );
  server.setTimeout(d.http?.idleTimeoutMs ?? 120_000, (socket) => socket.destroy());
  return server;
}

async function route(d: DaemonHttpDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]!;
  const parts = path.split('/').filter(Boolean);
  if (req.method === 'POST' && parts[0] === 'hooks') return webhookRoute(d.hub(), d.metrics, req, res, parts.slice(1));
  if (d.codec && parts[0] === 'codec' && parts.length === 2) return d.codec(req, res, parts[1]!);
  if (req.method === 'GET' && path === '/healthz') return send(res, 200, { ok: true });
  if (req.method === 'GET' && path === '/readyz')
    return d.ready()
      ? send(res, 200, { ready: true, ...d.detail?.() })
      : send(res, 503, { ready: false, ...d.detail?.() });
  if (req.method === 'GET' && path === '/metrics') {
    let text = await d.metrics.registry.metrics();
    if (d.temporalMetricsUrl) {
      try {
        const r = await request(d.temporalMetricsUrl, { headersTimeout: 2000, bodyTimeout: 2000 });
        text += `\n${await r.body.text()}`;
      } catch (err) {
        d.logger.debug({ err: (err as Error).message }, 'temporal metrics unavailable');
      }
    }
    return send(res, 200, text, d.metrics.registry.contentType);
  }
  send(res, 404, { error: `no route for ${req.method ?? ''} ${path}` });
}
