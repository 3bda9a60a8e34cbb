/** A real HTTP proxy in front of the platform that can fail `/health` on demand (the scaler's fallback is tested through it). */
import { createServer, type Server } from 'node:http';
import { request } from 'undici';
import { listenLocal } from '../helpers/listen';

/** An HTTP proxy to `target`; while `failing` is set, every `/health` call is answered 503 (the rest passes). */
export interface HealthProxy {
  url: string;
  failing: boolean;
  close(): Promise<void>;
}

export async function healthProxy(target: string): Promise<HealthProxy> {
  const proxy = { url: '', failing: false, close: async () => {} } as HealthProxy;
  const server: Server = createServer((req, res) => {
    if (proxy.failing && /\/health(\?|$)/.test(req.url ?? '')) {
      res
        .writeHead(503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'health is down (test proxy)' }));
      return;
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'connection'));
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    request(`${target}${req.url}`, {
      method: req.method as 'GET',
      headers: headers as Record<string, string>,
      ...(hasBody ? { body: req } : {}),
    })
      .then(async (r) => {
        const body = Buffer.from(await r.body.arrayBuffer());
        const out = Object.fromEntries(
          Object.entries(r.headers).filter(([k]) => !['transfer-encoding', 'connection', 'content-length'].includes(k)),
        );
        res.writeHead(r.statusCode, out as Record<string, string>).end(body);
      })
      .catch((err: unknown) => res.writeHead(502).end(String(err)));
  });
  Object.assign(proxy, await listenLocal(server));
  return proxy;
}
