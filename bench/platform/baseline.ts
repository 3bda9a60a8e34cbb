import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { expectStatus, keepAlivePool, requestJson } from './http';

/** A bare node:http server on 127.0.0.1: reads the body, answers a tiny JSON. No routing, no state. */
async function startBareServer(): Promise<{ url: string; close(): Promise<void> }> {
  const reply = JSON.stringify({ id: '00000000-0000-0000-0000-000000000000-l1', status: 'IN_QUEUE' });
  const server: Server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
      res.end(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The bare-HTTP baseline: the server and a keep-alive client pool of `connections`, in this process. */
export interface Baseline {
  /**
   * The four requests of a lifecycle, in the same shapes and order (small JSON POST as /run, GET
   * as job-take, small JSON POST as job-done, GET as /status), one after the other.
   */
  round(): Promise<void>;
  /** One small JSON POST; resolves with its round-trip time in ms. */
  roundTrip(): Promise<number>;
  close(): Promise<void>;
}

const CLIENT = { authorization: 'Bearer bench-key' };
const WORKER = { authorization: 'sl_bench-pod-token' };

export async function startBaseline(connections: number): Promise<Baseline> {
  const server = await startBareServer();
  const pool = keepAlivePool(server.url, connections);
  return {
    async round() {
      expectStatus(
        'baseline run',
        await requestJson(pool, 'POST', '/v2/bench/run', { body: { input: {} }, headers: CLIENT }),
      );
      expectStatus(
        'baseline take',
        await requestJson(pool, 'GET', '/v2/bench/job-take/pod?job_in_progress=0', { headers: WORKER }),
      );
      expectStatus(
        'baseline done',
        await requestJson(pool, 'POST', '/v2/bench/job-done/pod/job?isStream=false', {
          body: { output: { ok: true } },
          headers: WORKER,
        }),
      );
      expectStatus('baseline status', await requestJson(pool, 'GET', '/v2/bench/status/job', { headers: CLIENT }));
    },
    async roundTrip() {
      const t = performance.now();
      expectStatus(
        'baseline round trip',
        await requestJson(pool, 'POST', '/v2/bench/run', { body: { input: {} }, headers: CLIENT }),
      );
      return performance.now() - t;
    },
    async close() {
      await pool.close();
      await server.close();
    },
  };
}
