/**
 * The daemon's HTTP server (webhooks, health, metrics, codec endpoint) drops clients that trickle
 * their headers or body, and closes kept-alive connections left idle: real sockets on port 0.
 */
import { type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDaemonServer } from '../../worker/http-server';
import { DaemonMetrics } from '../../worker/metrics';

describe("the daemon's HTTP server timeouts", () => {
  let server: Server;
  let port = 0;
  const open = new Set<Socket>();
  beforeAll(async () => {
    server = createDaemonServer({
      hub: () => undefined,
      metrics: new DaemonMetrics(),
      logger: pino({ level: 'silent' }),
      ready: () => true,
      // A route that reads its whole body, as the codec endpoint does.
      codec: async (req, res) => {
        for await (const _ of req);
        res.end('{}');
      },
      http: { headersTimeoutMs: 1000, requestTimeoutMs: 1500, keepAliveTimeoutMs: 1000, idleTimeoutMs: 5000 },
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const s of open) s.destroy();
    await new Promise((r) => server.close(r));
  });

  /** Connects, writes `head`, then one byte of `trickle` every 200 ms; resolves with what came back once the server closes. */
  const trickling = (head: string, trickle: string): Promise<{ answer: string; trickled: number }> =>
    new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      open.add(socket);
      let answer = '';
      let trickled = 0;
      const timer = setInterval(() => {
        if (trickled < trickle.length) socket.write(trickle[trickled++]!);
      }, 200);
      socket.on('data', (d: Buffer) => (answer += d.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ answer, trickled });
      });
      socket.write(head);
    });

  it('a client trickling its body is answered 408 and dropped, long before its body is all sent', async () => {
    const body = '{"payloads":[]}'.padEnd(1000);
    const r = await trickling('POST /codec/decode HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n', body);
    expect(r.answer).toMatch(/^HTTP\/1\.1 408/);
    expect(r.trickled).toBeLessThan(body.length);
  });

  it('a client trickling its headers is dropped', async () => {
    const r = await trickling('GET /healthz HTTP/1.1\r\n', 'X-Slow: '.padEnd(500, 'a'));
    expect(r.answer).not.toMatch(/^HTTP\/1\.1 200/);
    expect(r.trickled).toBeLessThan(500);
  });

  it('a kept-alive connection left idle is closed', async () => {
    const r = await trickling('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', '');
    expect(r.answer).toMatch(/^HTTP\/1\.1 200[\s\S]*Keep-Alive: timeout=1/);
  });
});
