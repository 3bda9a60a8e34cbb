/**
 * The daemon's codec endpoint: Temporal's remote codec protocol (`POST /codec/encode` and
 * `/codec/decode`, `{ payloads: [{ metadata: { k: base64 }, data: base64 }] }` both ways), so the
 * Temporal UI and CLI show sealed payloads decrypted. Off unless SLUICE_CODEC_ENDPOINT; every call
 * carries `Authorization: Bearer <token>`, checked in constant time before the body is read.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type DataConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import { z } from 'zod';
import { ConfigError } from '../config/errors';
import { readSecretFile } from '../config/payload-keys';
import { type DaemonConfig } from './config';

/** Options of {@link codecRoute}. */
export interface CodecRouteOptions {
  codec: PayloadCodec;
  /** The bearer token every call must carry. */
  token: string;
  /**
   * The browser origin allowed to call (the Temporal UI's), answered in CORS headers.
   * @default none (no CORS headers: the Temporal CLI and server-side callers only)
   */
  corsOrigin?: string;
}

/** Largest request body, bytes: a page of history's payloads. */
const BODY_LIMIT = 16 * 1024 * 1024;

const JsonPayloads = z.object({
  payloads: z.array(
    z.object({
      metadata: z.record(z.string(), z.base64()).nullish(),
      data: z.base64().nullish(),
    }),
  ),
});

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

const toPayload = (p: z.infer<typeof JsonPayloads>['payloads'][number]): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data ?? '', 'base64'),
});

const toJson = (p: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

/** The handler of `/codec/*` requests (`action`: the path after `/codec/`). */
export function codecRoute(o: CodecRouteOptions) {
  const expected = digest(`Bearer ${o.token}`);
  const cors: Record<string, string> = o.corsOrigin
    ? {
        'access-control-allow-origin': new URL(o.corsOrigin).origin,
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-allow-headers': 'authorization, content-type, x-namespace',
        'access-control-allow-credentials': 'true',
        vary: 'origin',
      }
    : {};
  const send = (res: ServerResponse, status: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { ...cors, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  return async (req: IncomingMessage, res: ServerResponse, action: string): Promise<void> => {
    // A browser's preflight carries no credentials: it only learns what it may send.
    if (req.method === 'OPTIONS') return void res.writeHead(204, cors).end();
    if (req.method !== 'POST' || (action !== 'encode' && action !== 'decode'))
      return send(res, 404, { error: 'POST /codec/encode or /codec/decode' });
    if (!timingSafeEqual(digest(req.headers.authorization ?? ''), expected)) {
      res.setHeader('connection', 'close');
      return send(res, 401, { error: 'a bearer token is required' });
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > BODY_LIMIT) return send(res, 413, { error: `body over ${BODY_LIMIT} bytes` });
    let body;
    try {
      body = JsonPayloads.parse(JSON.parse((await readLimited(req)).toString('utf8')));
    } catch (err) {
      return send(res, 400, { error: `not a payloads document: ${(err as Error).message.slice(0, 200)}` });
    }
    const payloads = body.payloads.map(toPayload);
    let out: Payload[];
    try {
      out = action === 'encode' ? await o.codec.encode(payloads) : await o.codec.decode(payloads);
    } catch (err) {
      return send(res, 422, { error: (err as Error).message });
    }
    send(res, 200, { payloads: out.map(toJson) });
  };
}

async function readLimited(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > BODY_LIMIT) throw new Error('body too large');
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

/** The codec endpoint's handler when SLUICE_CODEC_ENDPOINT is on (the settings require the keys and a token then). */
export function codecEndpoint(config: DaemonConfig, dataConverter: DataConverter) {
  const codec = dataConverter.payloadCodecs?.[0];
  if (!config.SLUICE_CODEC_ENDPOINT || !codec) return undefined;
  const token =
    config.SLUICE_CODEC_TOKEN ?? readSecretFile(config.SLUICE_CODEC_TOKEN_FILE!, 'SLUICE_CODEC_TOKEN_FILE').trim();
  if (token.length < 32)
    throw new ConfigError([
      { variable: 'SLUICE_CODEC_TOKEN_FILE', message: 'the token must be at least 32 characters' },
    ]);
  return codecRoute({
    codec,
    token,
    ...(config.SLUICE_CODEC_CORS_ORIGIN ? { corsOrigin: config.SLUICE_CODEC_CORS_ORIGIN } : {}),
  });
}
