/**
 * gRPC's unary call over Node's own http2, and protobuf's wire format for the few messages a short
 * command sends (writer) and reads (reader: fields by number, the unknown ones skipped). What
 * temporal-lite.ts builds Temporal's calls on, so `sluice batch start` loads no gRPC client and no
 * protobuf library (issue 23).
 */
import { connect, constants, type ClientHttp2Session } from 'node:http2';

/** A field of a message being written: its number and its encoded value (see the helpers below). */
export type Field = Buffer;

const varint = (n: number): Buffer => {
  const out: number[] = [];
  let v = n;
  while (v > 127) {
    out.push((v % 128) | 128);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
};
const key = (field: number, wire: 0 | 2): Buffer => varint(field * 8 + wire);

/** A length-delimited field: bytes, a string or an embedded message. */
export const bytesField = (field: number, value: Buffer): Field =>
  Buffer.concat([key(field, 2), varint(value.length), value]);
export const stringField = (field: number, value: string): Field => bytesField(field, Buffer.from(value, 'utf8'));
export const messageField = (field: number, ...fields: Field[]): Field => bytesField(field, Buffer.concat(fields));
/** A varint field: an enum, a bool, a non-negative integer. */
export const varintField = (field: number, value: number): Field => Buffer.concat([key(field, 0), varint(value)]);
export const message = (...fields: Field[]): Buffer => Buffer.concat(fields);

/** A message as read: each field number's values in order (varints as numbers, length-delimited as bytes). */
export class Reader {
  private readonly fields = new Map<number, (number | Buffer)[]>();

  constructor(buf: Buffer) {
    let at = 0;
    const readVarint = (): number => {
      let n = 0;
      let scale = 1;
      for (;;) {
        const b = buf[at++];
        if (b === undefined) throw new Error('protobuf: truncated varint');
        n += (b & 127) * scale;
        if (b < 128) return n;
        scale *= 128;
      }
    };
    while (at < buf.length) {
      const k = readVarint();
      const [field, wire] = [Math.floor(k / 8), k % 8];
      let value: number | Buffer;
      if (wire === 0) value = readVarint();
      else if (wire === 2) {
        const len = readVarint();
        value = buf.subarray(at, at + len);
        at += len;
      } else if (wire === 1 || wire === 5) {
        at += wire === 1 ? 8 : 4;
        continue;
      } else throw new Error(`protobuf: wire type ${wire} not supported`);
      const list = this.fields.get(field) ?? [];
      list.push(value);
      this.fields.set(field, list);
    }
  }

  has(field: number): boolean {
    return this.fields.has(field);
  }
  number(field: number): number {
    const v = this.fields.get(field)?.at(-1);
    return typeof v === 'number' ? v : 0;
  }
  bytes(field: number): Buffer | undefined {
    const v = this.fields.get(field)?.at(-1);
    return Buffer.isBuffer(v) ? v : undefined;
  }
  string(field: number): string {
    return this.bytes(field)?.toString('utf8') ?? '';
  }
  message(field: number): Reader | undefined {
    const b = this.bytes(field);
    return b ? new Reader(b) : undefined;
  }
  messages(field: number): Reader[] {
    return (this.fields.get(field) ?? []).filter(Buffer.isBuffer).map((b) => new Reader(b));
  }
}

/** A call's gRPC status other than OK: `code` (6 already exists, 5 not found, 14 unavailable, ...) and its message. */
export class GrpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'GrpcError';
  }
}

export const GRPC_CODES = { notFound: 5, alreadyExists: 6, unavailable: 14 } as const;

/** One HTTP/2 connection to a gRPC server (plain text: TLS and credentials are the full client's). */
export class GrpcChannel {
  private session: ClientHttp2Session | undefined;

  constructor(
    private readonly address: string,
    private readonly metadata: Record<string, string> = {},
  ) {}

  private connected(): ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const s = connect(`http://${this.address}`);
    s.on('error', () => undefined); // each call reports it (below)
    return (this.session = s);
  }

  /** Sends `request` to `/service/method`; resolves with the answer's bytes or rejects with a {@link GrpcError}. */
  call(path: string, request: Buffer): Promise<Buffer> {
    const frame = Buffer.alloc(5 + request.length);
    frame.writeUInt32BE(request.length, 1);
    request.copy(frame, 5);
    return new Promise<Buffer>((resolve, reject) => {
      const session = this.connected();
      const fail = (err: Error) =>
        reject(err instanceof GrpcError ? err : new GrpcError(GRPC_CODES.unavailable, err.message));
      session.once('error', fail);
      const req = session.request({
        [constants.HTTP2_HEADER_METHOD]: 'POST',
        [constants.HTTP2_HEADER_PATH]: path,
        'content-type': 'application/grpc',
        te: 'trailers',
        ...this.metadata,
      });
      const chunks: Buffer[] = [];
      let status: string | undefined;
      let statusMessage = '';
      const take = (h: Record<string, unknown>) => {
        if (h['grpc-status'] !== undefined) status = String(h['grpc-status']);
        if (h['grpc-message'] !== undefined) statusMessage = decodeURIComponent(String(h['grpc-message']));
      };
      req.on('response', take); // a trailers-only answer (an error) carries its status in the headers
      req.on('trailers', take);
      req.on('data', (c: Buffer) => chunks.push(c));
      req.once('error', fail);
      req.once('close', () => {
        session.off('error', fail);
        if (status === undefined) return fail(new Error(`no gRPC status from ${this.address} (${path})`));
        if (status !== '0') return fail(new GrpcError(Number(status), statusMessage || `gRPC status ${status}`));
        const body = Buffer.concat(chunks);
        resolve(body.subarray(5, 5 + (body.length >= 5 ? body.readUInt32BE(1) : 0)));
      });
      req.end(frame);
    });
  }

  /** Opens the connection now, so that its handshake overlaps the caller's other work; a failure is reported by the next call. */
  connect(): void {
    this.connected();
  }

  /** Closes the connection (a pending call fails); the process may then exit. */
  close(): void {
    this.session?.destroy();
  }
}
