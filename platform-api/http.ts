/**
 * HTTP core of the platform client: one keep-alive undici pool per origin (or Node's own http, for
 * a command's few calls), JSON in and out, authentication, a per-request deadline; failures become
 * typed errors (http-failures.ts).
 */
import type * as Undici from 'undici';
import { type Dispatcher } from 'undici';
import { isPlatformApiError, type PlatformApiErrorContext } from './errors';
import { errorForStatus, networkError, parseRetryAfter } from './http-failures';
import { nodeExchange, type Exchange } from './http-exchange';

/** How the API key travels: `bearer` -> `authorization: Bearer KEY` (spec), `bare` -> `authorization: KEY`. */
export type AuthStyle = 'bearer' | 'bare';

/** Options of {@link HttpCore}. */
export interface HttpCoreOptions {
  /** Base URL including any path prefix, e.g. `http://127.0.0.1:8080/v2`. */
  baseUrl: string;
  apiKey: string;
  authStyle?: AuthStyle;
  /**
   * Deadline of one request (connect + send + answer + body), ms.
   * @default 30000
   */
  requestTimeoutMs?: number;
  /**
   * Max sockets of the pool. Ignored when `dispatcher` is given.
   * @default 64
   */
  connections?: number;
  /**
   * Idle keep-alive time when the server sends no hint, ms.
   * @default 4000 (below Node's 5 s server default)
   */
  keepAliveTimeout?: number;
  /** Use this dispatcher instead of an own pool; it is not closed by {@link HttpCore.close}. */
  dispatcher?: Dispatcher;
  /**
   * Send with Node's own `http` / `https` modules instead of an own undici pool: neither npm's
   * undici nor Node's fetch is loaded (100-150 ms of a CLI command's start, issue 23). For a
   * process's few calls, one connection each; the daemon's many keep the pool. Ignored when
   * `dispatcher` is given.
   * @default false
   */
  nodeHttp?: boolean;
  /**
   * Told of every 429 answer, each attempt of a call on its own (a 429 retried, or waited out by
   * the rate budget, is told too): what metrics count as "429s met".
   * @default undefined (not told)
   */
  onRateLimited?: (e: RateLimitedEvent) => void;
}

/** A 429 answer, as {@link HttpCoreOptions.onRateLimited} is told of it. */
export interface RateLimitedEvent {
  /** The operation of the request (e.g. `run`, `status`, a GraphQL operation). */
  operation: string;
  endpointId?: string;
  /** The answer's `Retry-After`, ms, when it gave one. */
  retryAfterMs?: number;
}

/** One request. `body` is already-encoded JSON so callers can measure it before sending. */
export interface HttpRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path below the base URL, segments already encoded, starting with `/`. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: string;
  /** Extra request headers (e.g. `idempotency-key`). */
  headers?: Record<string, string>;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Error context: operation, endpointId, jobId. */
  ctx: PlatformApiErrorContext;
}

const MAX_TEXT_BODY = 2048;

function decode(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text.length > MAX_TEXT_BODY ? `${text.slice(0, MAX_TEXT_BODY)}…` : text;
  }
}

/** The JSON-decoded body of a 2xx answer (undefined when empty, a string when not JSON). */
export interface HttpResponse {
  status: number;
  body: unknown;
  /** True when the 2xx body was not valid JSON. */
  notJson: boolean;
  /** The answer's headers (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
}

/** Sends JSON requests to one origin and throws {@link PlatformApiError}s for every failure. */
export class HttpCore {
  /** Origin plus path prefix without trailing slash, e.g. `http://h:8080/v2` (or `http://h:8080`). */
  private readonly base: string;
  private readonly origin: string;
  private readonly opts: HttpCoreOptions;
  /** The dispatcher (the caller's, or the own pool made at the first request); none with `nodeHttp`. */
  private dispatcher: Promise<Dispatcher> | undefined;
  private undici: Promise<typeof Undici> | undefined;
  private closed = false;
  private readonly authorization: string;
  private readonly timeoutMs: number;
  private readonly onRateLimited: HttpCoreOptions['onRateLimited'];

  constructor(opts: HttpCoreOptions) {
    const u = new URL(opts.baseUrl);
    // `new URL('http://h').href` ends in '/', so join origin and trimmed path by hand.
    this.base = u.origin + u.pathname.replace(/\/+$/, '');
    this.origin = u.origin;
    this.opts = opts;
    this.authorization = (opts.authStyle ?? 'bearer') === 'bearer' ? `Bearer ${opts.apiKey}` : opts.apiKey;
    this.timeoutMs = opts.requestTimeoutMs ?? 30_000;
    this.onRateLimited = opts.onRateLimited;
    if (opts.dispatcher) this.dispatcher = Promise.resolve(opts.dispatcher);
  }

  /** How to send: undici's pool (loaded at the first request: a client never used, or with `nodeHttp`, never loads it), or Node's http. */
  private exchange(): Exchange {
    const o = this.opts;
    if (this.closed) throw new Error('the HTTP client is closed');
    if (o.nodeHttp && !o.dispatcher) return nodeExchange;
    const undici = (this.undici ??= import('undici'));
    this.dispatcher ??= undici.then(
      ({ Pool }) =>
        new Pool(this.origin, { connections: o.connections ?? 64, keepAliveTimeout: o.keepAliveTimeout ?? 4_000 }),
    );
    const dispatcher = this.dispatcher;
    return async (url, init) => {
      const res = await (
        await undici
      ).request(url, {
        ...init,
        dispatcher: await dispatcher,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
    };
  }

  /**
   * Loads the transport now (undici and its pool), not at the first request: a long-running process
   * (the daemon) pays that load at its start, where its code cache keeps it, and not on its first call.
   */
  warm(): void {
    if (this.closed) return;
    this.exchange();
    // A failed load is the first request's to report, not an unhandled rejection now.
    this.dispatcher?.catch(() => undefined);
  }

  /** Sends one request. Rejects with a typed error, or with the caller's abort reason when `signal` fires. */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const url = new URL(this.base + req.path);
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = {
      ...req.headers,
      accept: 'application/json',
      authorization: this.authorization,
    };
    if (req.body !== undefined) headers['content-type'] = 'application/json';

    // One controller covers the whole exchange, body included; undici's own timeouts are off.
    const ac = new AbortController();
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ac.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    const onAbort = (): void => ac.abort(req.signal?.reason);
    req.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      req.signal?.throwIfAborted();
      const init = { method: req.method, headers, signal: ac.signal };
      const res = await this.exchange()(url, req.body !== undefined ? { ...init, body: req.body } : init);
      const body = decode(res.text);
      if (res.status >= 200 && res.status < 300) {
        return { status: res.status, body, notJson: typeof body === 'string', headers: res.headers };
      }
      const err = errorForStatus(res.status, body, req.ctx);
      const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
      if (retryAfterMs !== undefined) Object.assign(err, { retryAfterMs });
      if (res.status === 429) this.toldRateLimited(req.ctx, retryAfterMs);
      throw err;
    } catch (e) {
      if (isPlatformApiError(e)) throw e;
      if (req.signal?.aborted && !timedOut) throw req.signal.reason;
      throw networkError(e, timedOut, timeoutMs, req.ctx);
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
    }
  }

  private toldRateLimited(ctx: PlatformApiErrorContext, retryAfterMs: number | undefined): void {
    const e: RateLimitedEvent = { operation: ctx.operation ?? 'request', endpointId: ctx.endpointId, retryAfterMs };
    try {
      this.onRateLimited?.(e);
    } catch {
      // An observer's failure is not the request's.
    }
  }

  /** Closes the own pool (a caller-supplied dispatcher is left open). */
  async close(): Promise<void> {
    this.closed = true;
    if (!this.opts.dispatcher && this.dispatcher) await (await this.dispatcher).close();
  }
}
