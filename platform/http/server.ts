import { createServer, type Server } from 'node:http';
import { type PlatformServices } from '../services';
import { sendError, sendJson } from './respond';
import { Router, type Ctx } from './router';
import { queueRoutes } from './routes/queue';
import { workerRoutes } from './routes/worker';

/** Extra route groups (GraphQL, REST) registered by the composition root. */
export type RouteGroup = (router: Router, s: PlatformServices) => void;

/** The platform's HTTP server: one router for queue, worker, REST and GraphQL routes. */
export function createPlatformServer(s: PlatformServices, groups: RouteGroup[] = []): Server {
  const router = new Router();
  router.on('GET', '/', (ctx) => sendJson(ctx.res, 200, { service: 'sluice-platform', queue: '/v2/{endpoint_id}/...', rest: '/v1', graphql: '/graphql' }));
  router.on('GET', '/healthz', (ctx) => sendJson(ctx.res, 200, { ok: true }));
  queueRoutes(router, s);
  workerRoutes(router, s);
  for (const g of groups) g(router, s);

  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0, headersTimeout: 60_000 }, (req, res) => {
    let done: (() => void)[] | undefined;
    let abort: AbortController | undefined;
    // One listener per request; the abort signal is only made for the few routes that wait.
    res.once('close', () => {
      if (abort && !res.writableFinished) abort.abort();
      if (done) for (const fn of done) fn();
    });
    const q = req.url?.indexOf('?') ?? -1;
    const pathname = q >= 0 ? req.url!.slice(0, q) : (req.url ?? '/');
    let query: URLSearchParams | undefined;
    const ctx: Ctx = {
      req, res, params: {},
      get query() {
        return (query ??= new URLSearchParams(q >= 0 ? req.url!.slice(q + 1) : ''));
      },
      get signal() {
        abort ??= new AbortController();
        if (res.destroyed && !res.writableFinished) abort.abort();
        return abort.signal;
      },
      onDone: (fn) => (done ??= []).push(fn),
    };
    const fail = (err: unknown): void => {
      // A body left unread (too large, bad JSON) would poison the keep-alive connection.
      const close = !req.complete ? { connection: 'close' } : undefined;
      const status = sendError(res, err, close);
      if (status >= 500) s.logger.error({ err, method: req.method, url: req.url }, 'request failed');
    };
    try {
      const { handler, params } = router.match(req.method ?? 'GET', pathname);
      ctx.params = params;
      const r = handler(ctx);
      if (r instanceof Promise) r.catch(fail);
    } catch (err) {
      fail(err);
    }
  });
  return server;
}
