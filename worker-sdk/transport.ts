import { errors, request } from 'undici';
import { sleep } from './async';
import { RequestTimeoutError, describeError } from './errors';
import { log } from './log';

/** Status and body text of one HTTP exchange. */
export interface HttpResponse {
  status: number;
  text: string;
}

export interface SendOptions {
  body?: string;
  /** Cancels the call (for example on shutdown); the error is then the abort reason. */
  signal?: AbortSignal;
  timeoutMs: number;
  headers?: Record<string, string>;
}

/** Delivery attempts of job-done / job-stream POSTs, and the waits between them. */
const DELIVERY_ATTEMPTS = 3;
const DELIVERY_BACKOFF_MS = [1_000, 2_000];
const DELIVERY_TIMEOUT_MS = 60_000;

export const USER_AGENT = 'sluice-worker-ts/0.1.0';

/** HTTP calls to the platform, with the worker's session headers. */
export class Transport {
  private readonly headers: Record<string, string>;
  /** The same with `content-type: application/json`, for calls with a body. */
  private readonly jsonHeaders: Record<string, string>;

  constructor(apiKey: string | undefined) {
    this.headers = { 'user-agent': USER_AGENT, accept: 'application/json' };
    if (apiKey !== undefined) this.headers.authorization = apiKey;
    this.jsonHeaders = { ...this.headers, 'content-type': 'application/json' };
  }

  /**
   * One request. Throws on network errors, on abort, and {@link RequestTimeoutError} when no answer
   * (or no byte of its body) came within `timeoutMs`. The timeout is undici's own (its coarse shared
   * timer), not an `AbortSignal.timeout` joined to the caller's signal: those cost a timer, two
   * signals and their listeners per request, a good share of a short job's CPU in the worker.
   */
  async send(method: 'GET' | 'POST', url: string, opts: SendOptions): Promise<HttpResponse> {
    let headers = opts.body === undefined ? this.headers : this.jsonHeaders;
    if (opts.headers) headers = { ...headers, ...opts.headers };
    try {
      const res = await request(url, {
        method,
        headers,
        body: opts.body,
        signal: opts.signal,
        headersTimeout: opts.timeoutMs,
        bodyTimeout: opts.timeoutMs,
      });
      const text = await res.body.text();
      return { status: res.statusCode, text };
    } catch (err) {
      if (err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError)
        throw new RequestTimeoutError(`${method} timed out after ${opts.timeoutMs} ms`);
      throw err;
    }
  }

  /**
   * POSTs a JSON payload: up to 3 attempts on 5xx or network errors (1 s, then 2 s apart); a 4xx
   * drops it. Returns whether it was accepted. Never throws.
   */
  async deliver(
    url: string,
    payload: string,
    fields: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      let failure: string;
      try {
        const res = await this.send('POST', url, { body: payload, timeoutMs: DELIVERY_TIMEOUT_MS, headers });
        if (res.status < 400) return true;
        if (res.status < 500) {
          log('warn', 'delivery refused, dropped', { ...fields, status: res.status, body: res.text.slice(0, 300) });
          return false;
        }
        failure = `HTTP ${res.status}`;
      } catch (err) {
        failure = describeError(err);
      }
      if (attempt >= DELIVERY_ATTEMPTS) {
        log('error', 'delivery failed, dropped', { ...fields, attempts: attempt, error: failure });
        return false;
      }
      log('warn', 'delivery failed, retrying', { ...fields, attempt, error: failure });
      await sleep(DELIVERY_BACKOFF_MS[attempt - 1] ?? 2_000);
    }
  }
}

/** Parses a response body as JSON; undefined when empty or not JSON. */
export function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
