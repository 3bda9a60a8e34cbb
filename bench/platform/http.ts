import { Pool } from 'undici';

/** Status and parsed JSON body (undefined when empty) of one exchange. */
export interface JsonReply {
  status: number;
  body: unknown;
}

/** A keep-alive connection pool to one origin; the same client for the baseline and the platform. */
export function keepAlivePool(origin: string, connections: number): Pool {
  return new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
}

/** One request with an optional JSON body; the answer is read fully and parsed. */
export async function requestJson(
  pool: Pool,
  method: 'GET' | 'POST',
  path: string,
  opts: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<JsonReply> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const res = await pool.request({ method, path, headers, body, signal: opts.signal });
  const text = await res.body.text();
  return { status: res.statusCode, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** Throws unless the reply has `status` (default 200). */
export function expectStatus(what: string, reply: JsonReply, status = 200): void {
  if (reply.status !== status) throw new Error(`${what}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
}
