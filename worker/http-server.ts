import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request } from 'undici';
import { type Logger } from 'pino';
import { JobRecord, LIMITS, jsonDeeperThan } from '../contracts';
import { type DaemonMetrics } from './metrics';
import { type WebhookHub } from './webhook-hub';

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
}

const WEBHOOK_BODY_LIMIT = 64 * 1024 * 1024;

const send = (res: ServerResponse, status: number, body: unknown, type = 'application/json'): void => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > WEBHOOK_BODY_LIMIT) throw new Error('body too large');
    chunks.push(c);
  }
  const value = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  // Handed on to Temporal, which writes it out again: a value nested deeper than the platform's limit is refused.
  if (jsonDeeperThan(value, LIMITS.jsonDepth))
    throw new Error(`body nests arrays and objects more than ${LIMITS.jsonDepth} levels deep`);
  return value;
}

/**
 * The daemon's HTTP face: `POST /hooks/<wf>/<limit>/<sig>` (job webhooks), `/healthz`,
 * `/readyz`, `/metrics`, and `/codec/{encode,decode}` when the codec endpoint is on.
 */
export function createDaemonServer(d: DaemonHttpDeps): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const parts = path.split('/').filter(Boolean);
    const handle = async (): Promise<void> => {
      if (req.method === 'POST' && parts[0] === 'hooks' && parts.length === 4) {
        const hub = d.hub();
        const target = hub?.verify(parts[1]!, parts[2]!, parts[3]!);
        if (!hub || !target) {
          d.metrics.webhook('forbidden');
          return send(res, 404, { error: 'unknown webhook' });
        }
        let record;
        try {
          record = JobRecord.parse(await readJson(req));
        } catch (err) {
          d.metrics.webhook('bad_request');
          return send(res, 400, { error: `webhook body is not a job record: ${(err as Error).message.slice(0, 200)}` });
        }
        await hub.onWebhook(target, record);
        d.metrics.webhook('accepted');
        return send(res, 200, {});
      }
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
    };
    handle().catch((err: unknown) => {
      d.logger.error({ err }, 'daemon request failed');
      d.metrics.webhook('error');
      if (!res.headersSent) send(res, 500, { error: 'internal error' });
    });
  });
}
