/**
 * One public URL in front of several daemons, as a load balancer would be: each request goes to the
 * next target in turn; a target that refuses the connection (a killed daemon) is skipped.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { listenLocal } from './listen';

/** A running balancer: its URL, its targets (change them at will) and what each target answered. */
export interface RoundRobin {
  url: string;
  targets: number[];
  /** Requests each target port answered, by status code. */
  answered: Map<number, Map<number, number>>;
  close(): Promise<void>;
}

/** Starts a balancer on 127.0.0.1 port 0 over the given ports of 127.0.0.1. */
export async function startRoundRobin(targets: number[]): Promise<RoundRobin> {
  let next = 0;
  const answered = new Map<number, Map<number, number>>();
  const rr: RoundRobin = { url: '', targets: [...targets], answered, close: async () => undefined };
  const forward = (
    req: IncomingMessage,
    body: Buffer,
    port: number,
  ): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const out = request(
        { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      out.on('error', reject);
      out.end(body);
    });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        for (let tries = 0; tries < rr.targets.length; tries++) {
          const port = rr.targets[next++ % rr.targets.length]!;
          try {
            const got = await forward(req, body, port);
            const byStatus = answered.get(port) ?? new Map<number, number>();
            byStatus.set(got.status, (byStatus.get(got.status) ?? 0) + 1);
            answered.set(port, byStatus);
            res.writeHead(got.status, got.headers).end(got.body);
            return;
          } catch {
            // refused: the next target
          }
        }
        res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'no daemon answered' }));
      })();
    });
  });
  Object.assign(rr, await listenLocal(server));
  return rr;
}
