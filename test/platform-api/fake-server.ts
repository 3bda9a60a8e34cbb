/**
 * Throwaway node:http server for client-behaviour tests (retry counting, resets, Retry-After).
 * It is not a platform implementation: each test scripts the answers it needs.
 */
import http from 'node:http';
import { listenLocal } from '../helpers/listen';

/** One request as the server saw it. */
export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Scripted answer: `n` is the 1-based number of the request. */
export type Handler = (req: Seen, res: http.ServerResponse, n: number) => void;

/** A running fake server. */
export interface FakeServer {
  /** Base URL including `/v2`. */
  baseUrl: string;
  seen: Seen[];
  close(): Promise<void>;
}

/** Sends a JSON answer. */
export function json(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Starts a server on an ephemeral port; the body is fully read before `handler` runs. */
export async function startServer(handler: Handler): Promise<FakeServer> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s: Seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(s);
      handler(s, res, seen.length);
    });
  });
  const { url, close } = await listenLocal(server);
  return { baseUrl: `${url}/v2`, seen, close };
}

/** A base URL on which nothing listens (the port was just released). */
export async function refusedBaseUrl(): Promise<string> {
  const s = await startServer(() => undefined);
  await s.close();
  return s.baseUrl;
}
