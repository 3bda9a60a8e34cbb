/** The platform's HTTP server: one router for queue, worker, REST and GraphQL routes. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type PlatformServices } from '../../services';
import { type HttpInterceptor } from '../../faults/http';
import { discardUnread, expectsContinue } from './body';
import { sendError, sendJson } from './respond';
import { RequestContext } from './context';
import { Router, type Ctx } from './router';
import { queueRoutes } from '../queue-routes';
import { workerRoutes } from '../worker-routes';

/** How long the server waits for a client; every value in ms. */
export interface HttpTimeoutOptions {
  /**
   * From a connection's first byte to the end of the request's headers.
   * @default 20000
   */
  headersTimeoutMs?: number;
  /**
   * From the start of a request to its last byte received (a body trickled slower than this is
   * dropped). Answers are not counted: a long-poll waits as long as it needs.
   * @default 120000 (the largest body, 20 MB, at about 170 kB/s)
   */
  requestTimeoutMs?: number;
  /**
   * Idle time of a keep-alive connection between requests (above the 60 s of common proxies).
   * @default 65000
   */
  keepAliveTimeoutMs?: number;
}

/** Extra route groups (GraphQL, REST) registered by the composition root. */
export type RouteGroup = (router: Router, s: PlatformServices) => void;

/**
 * The platform's HTTP server: one router for queue, worker, REST and GraphQL routes. `intercept`
 * (the fault mode, platform/faults) sees each request before the router.
 */
export function createPlatformServer(
  s: PlatformServices,
  groups: RouteGroup[] = [],
  intercept?: HttpInterceptor,
  timeouts: HttpTimeoutOptions = {},
): Server {
  const router = new Router();
  router.on('GET', '/', (ctx) =>
    sendJson(ctx.res, 200, {
      service: 'sluice-platform',
      queue: '/v2/{endpoint_id}/...',
      rest: '/v1',
      graphql: '/graphql',
    }),
  );
  router.on('GET', '/healthz', (ctx) => sendJson(ctx.res, 200, { ok: true }));
  queueRoutes(router, s);
  workerRoutes(router, s);
  for (const g of groups) g(router, s);

  const route = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const ctx = new RequestContext(req, res, q);
    try {
      const { handler, params } = router.match(req.method ?? 'GET', q >= 0 ? url.slice(0, q) : url);
      ctx.params = params;
      const r = handler(ctx);
      if (r instanceof Promise) r.catch((err: unknown) => failRequest(s, ctx, err));
    } catch (err) {
      void failRequest(s, ctx, err);
    }
  };
  const handle = intercept
    ? (req: IncomingMessage, res: ServerResponse): void => intercept(req, res, () => route(req, res))
    : route;
  const headersTimeout = timeouts.headersTimeoutMs ?? 20_000;
  const requestTimeout = timeouts.requestTimeoutMs ?? 120_000;
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs ?? 65_000,
      // Node checks the two timeouts every 30 s by default: often enough to honour the shorter one.
      connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.min(headersTimeout, requestTimeout) / 4)),
    },
    handle,
  );
  // `Expect: 100-continue`: the body is asked for only by a route that reads it within its limit.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    expectsContinue(req, res);
    handle(req, res);
  });
  return server;
}

/** Answers a failed request; a 500 (a bug of ours) is logged. */
async function failRequest(s: PlatformServices, ctx: Ctx, err: unknown): Promise<void> {
  // The rest of an unread body is discarded first: the client reads the answer only once it sent it all.
  const headers = await discardUnread(ctx.req);
  const status = sendError(ctx.res, err, headers);
  if (status >= 500) s.logger.error({ err, method: ctx.req.method, url: ctx.req.url }, 'request failed');
}
