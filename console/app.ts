/**
 * The console's routes (hono): the pages, their live fragments (htmx polls them at most once a
 * second), the confirmed actions, the sign-in, the assets. Bad input: a 4xx page (or JSON for
 * programs) naming the problem.
 */
import { Hono, type Context } from 'hono';
import { setCookie } from 'hono/cookie';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import { assets } from './assets';
import { login, loginPage, requireToken, SESSION_COOKIE } from './auth';
import { type ConsoleContext } from './context';
import { h, page } from './html';
import {
  ActionInputError,
  BATCH_ACTIONS,
  PIPELINE_ACTIONS,
  SCALER_ACTIONS,
  confirmPage,
  failedPage,
  type ActionSpec,
} from './pages/actions';
import { registerBatchRoutes } from './routes-batches';
import { registerPipelineRoutes } from './routes-pipelines';
import { registerResourceRoutes } from './routes-resources';

/** Options of {@link consoleApp}. */
export interface ConsoleAppOptions {
  /** The token off-host users sign in with; without it, no sign-in (127.0.0.1 only: the server refuses otherwise). */
  token?: string;
  /** Origins allowed to POST besides the console's own (a proxy's public origin). @default none */
  origins?: string[];
}

/** The error page of a status and message (JSON when the client asks for it). */
function problem(c: Context, status: 400 | 401 | 403 | 404 | 409 | 500 | 502, error: string, message: string) {
  if ((c.req.header('accept') ?? '').includes('application/json')) return c.json({ error, message }, status);
  return c.html(
    page({
      title: `${status} ${error}`,
      section: '',
      body: h`<p class="notice bad">${message}</p><p><a href="/">the batches</a></p>`,
    }),
    status,
  );
}

/** Registers GET (confirm) and POST (do) of each action under `prefix/:id/<action>`. */
function registerActions(
  app: Hono,
  ctx: ConsoleContext,
  prefix: string,
  noun: string,
  actions: Record<string, ActionSpec>,
) {
  app.get(`${prefix}/:id/:action`, (c, next) => {
    const spec = actions[c.req.param('action')];
    if (!spec) return next();
    const id = c.req.param('id');
    const back = `${prefix}/${encodeURIComponent(id)}`;
    return c.html(confirmPage(spec, `${noun} ${id}`, `${back}/${c.req.param('action')}`, back, prefix));
  });
  app.post(`${prefix}/:id/:action`, async (c) => {
    const spec = actions[c.req.param('action')];
    if (!spec) return problem(c, 404, 'NOT_FOUND', `no action ${c.req.param('action')}`);
    const id = c.req.param('id');
    const back = `${prefix}/${encodeURIComponent(id)}`;
    const form = Object.fromEntries(Object.entries(await c.req.parseBody()).map(([k, v]) => [k, String(v)]));
    try {
      await spec.run(ctx, id, form);
      return c.redirect(back, 303);
    } catch (err) {
      const status = err instanceof ActionInputError ? 400 : 409;
      return c.html(failedPage(spec, `${noun} ${id}`, (err as Error).message, back, prefix), status);
    }
  });
}

/** The console as a hono app over `ctx`. */
export function consoleApp(ctx: ConsoleContext, o: ConsoleAppOptions = {}): Hono {
  const app = new Hono();
  app.onError((err, c) => {
    if (err instanceof HTTPException && err.status === 403)
      return problem(c, 403, 'CROSS_ORIGIN', 'this form was not sent from the console itself (same-origin check)');
    if (err instanceof HTTPException) return problem(c, err.status as 400, 'BAD_REQUEST', err.message);
    return problem(c, 502, 'UNAVAILABLE', `could not read it: ${err.message}`);
  });
  app.notFound((c) => problem(c, 404, 'NOT_FOUND', `no page ${c.req.path}`));
  app.use('*', async (c, next) => {
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('X-Frame-Options', 'DENY');
    c.header('Referrer-Policy', 'same-origin');
    c.header(
      'Content-Security-Policy',
      "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
    );
    c.header('Cache-Control', c.req.path.startsWith('/assets/') ? 'public, max-age=3600' : 'no-store');
  });
  const origins = o.origins ?? [];
  app.use('*', csrf({ origin: (origin, c) => origin === new URL(c.req.url).origin || origins.includes(origin) }));
  app.use('*', requireToken(o.token));

  app.get('/assets/:name', (c) => {
    const a = assets().get(c.req.param('name'));
    return a ? c.body(a.body, 200, { 'Content-Type': a.type }) : problem(c, 404, 'NOT_FOUND', 'no such asset');
  });
  app.get('/login', (c) => c.html(loginPage(c.req.query('next') ?? '/', false)));
  app.post('/login', async (c) => {
    const form = Object.fromEntries(Object.entries(await c.req.parseBody()).map(([k, v]) => [k, String(v)]));
    const r = login(o.token, form);
    if (r.failed) return c.html(loginPage(r.next, true), 401);
    if (r.cookie)
      setCookie(c, SESSION_COOKIE, r.cookie, {
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
        secure: new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https',
      });
    return c.redirect(r.next, 303);
  });
  app.get('/', (c) => c.redirect('/batches', 302));
  registerBatchRoutes(app, ctx);
  registerActions(app, ctx, '/batches', 'batch', BATCH_ACTIONS);
  registerPipelineRoutes(app, ctx);
  registerActions(app, ctx, '/pipelines', 'pipeline', PIPELINE_ACTIONS);
  registerResourceRoutes(app, ctx);
  registerActions(app, ctx, '/scalers', 'scaler of', SCALER_ACTIONS);
  return app;
}
