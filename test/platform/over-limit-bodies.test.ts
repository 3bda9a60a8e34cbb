import { execFile } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { MB } from '../../contracts';
import { pythonBinary } from '../../common/tools';
import { call, testPlatform } from '../helpers/platform';

type P = Awaited<ReturnType<typeof testPlatform>>;

/**
 * Resolves with one whole HTTP answer read off a raw socket: at the socket's end, or once its
 * `Content-Length` body has arrived (a kept-alive connection stays open after it).
 */
function readAnswer(sock: Socket, resolve: (text: string) => void, reject: (err: Error) => void): void {
  let text = '';
  const finish = (): void => {
    sock.destroy();
    resolve(text);
  };
  sock.on('data', (d: Buffer) => {
    text += d.toString();
    const headEnd = text.indexOf('\r\n\r\n');
    const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, headEnd));
    if (headEnd >= 0 && length && Buffer.byteLength(text.slice(headEnd + 4)) >= Number(length[1])) finish();
  });
  sock.on('end', finish);
  sock.on('error', reject);
}

/** Over-limit bodies are answered with the 400 every time, by every client: never a broken pipe. */
describe('over-limit bodies: the client reads the 400, whatever it is', () => {
  let p: P;
  let ep: string;

  beforeAll(async () => {
    p = await testPlatform();
    ep = p.examples.echo!.id;
  });
  afterAll(() => p.dispose());

  it('undici (Node fetch) gets the 400 naming the limit, every try, on /run, /graphql and /v1', async () => {
    const run = JSON.stringify({ input: { blob: 'x'.repeat(11 * MB) } });
    const pad = 'x'.repeat(2 * MB);
    const targets: [string, string, Record<string, string>][] = [
      [`/v2/${ep}/run`, run, { authorization: 'Bearer test-key' }],
      [`/v2/${ep}/run`, run, {}],
      ['/graphql?api_key=test-key', JSON.stringify({ query: '{ myself { id } }', pad }), {}],
      ['/v1/templates', JSON.stringify({ name: pad }), { authorization: 'Bearer test-key' }],
    ];
    for (const [path, body, headers] of targets) {
      for (let i = 0; i < 5; i++) {
        const res = await request(`${p.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        });
        const text = await res.body.text();
        expect([400, 401], `${path}: ${text}`).toContain(res.statusCode);
        if (res.statusCode === 400) expect(text).toMatch(/limit/);
      }
    }
  });

  it('Python urllib, requests and aiohttp (the official clients) get the 400 every try', async () => {
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        pythonBinary(),
        ['-u', join(__dirname, 'py', 'over_limit.py'), p.url, 'test-key', ep, '4'],
        { timeout: 90_000 },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      );
    });
    const results = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, (number | string)[]>;
    const expected = Object.fromEntries(
      Object.keys(results).map((name) => [name, Array(4).fill(/no key/.test(name) ? 401 : 400)]),
    );
    expect(Object.keys(results)).toHaveLength(15);
    expect(results).toEqual(expected);
  });

  it('a known caller still sending an over-limit /graphql body gets the 400 once it has sent it, not a closed connection', async () => {
    const { port } = new URL(p.url);
    const body = Buffer.from(JSON.stringify({ query: '{ myself { id } }', pad: 'x'.repeat(2 * MB) }));
    const answer = await new Promise<string>((resolve, reject) => {
      const sock = connect(Number(port), '127.0.0.1', () => {
        sock.write(
          `POST /graphql?api_key=test-key HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        );
        // The body in slices with pauses between: still being sent when the server has refused it.
        const CHUNK = 128 * 1024;
        const next = (at: number): void => {
          if (at >= body.length) return;
          sock.write(body.subarray(at, at + CHUNK), (err) =>
            err ? reject(err) : setTimeout(() => next(at + CHUNK), 5),
          );
        };
        next(0);
      });
      readAnswer(sock, resolve, reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toMatch(/limit of \/graphql/);
  });

  it('Expect: 100-continue over the limit is refused before the body is sent', async () => {
    const { port } = new URL(p.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const sock = connect(Number(port), '127.0.0.1', () => {
        sock.write(
          `POST /v2/${ep}/run HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer test-key\r\nContent-Type: application/json\r\nContent-Length: ${11 * MB}\r\nExpect: 100-continue\r\n\r\n`,
        );
      });
      readAnswer(sock, resolve, reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).not.toMatch(/100 Continue/);
    expect(answer).toMatch(/10 MB limit of \/run/);
    // Within the limit, the body is asked for and the job runs.
    expect((await call(p.url, 'POST', `/v2/${ep}/runsync`, { body: { input: { ok: 1 } } })).body.status).toBe(
      'COMPLETED',
    );
  });
});
