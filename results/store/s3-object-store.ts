/**
 * The results store in an S3-compatible bucket (AWS SDK v3): a value is one object; a log is
 * numbered objects (`key`, then `key#000000000001`...) each written with `If-None-Match: *`, so
 * concurrent appenders never overwrite each other and nothing is read-modified-written (listing
 * keys and a log's parts: s3-list.ts).
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { type OutputRef } from '../../contracts';
import { putIfAbsent, statusOf, type S3Target } from './s3-conditional';
import { listPage, logParts, partKey, type LogPart } from './s3-list';
import { uploadLines } from './s3-upload';
import {
  checkKey,
  count,
  jsonLines,
  parseLines,
  type ListOptions,
  type ListPage,
  type LogSpan,
  type ObjectStore,
} from './object-store';
import { notFound, ValueStore } from './value-store';

/** Options of {@link S3ObjectStore}. */
export interface S3StoreOptions {
  bucket: string;
  /** Key prefix inside the bucket (no leading slash). @default '' */
  prefix?: string;
  /** The S3 client (endpoint, credentials, region, path style); see `s3ClientFromEnv`. */
  client: S3Client;
  /** Size of a multipart upload's parts in `writeLines` (S3's minimum is 5 MiB). @default 8 MiB */
  partBytes?: number;
}

export class S3ObjectStore extends ValueStore implements ObjectStore {
  readonly kind = 's3' as const;
  readonly url: string;
  private readonly root: string;
  /** Next part number of each log this store appended to (others may have appended since). */
  private readonly nextPart = new Map<string, number>();
  /** The bucket and the counted `send`, for conditional writes (./s3-conditional) and uploads (./s3-upload). */
  private readonly target: S3Target;

  constructor(private readonly o: S3StoreOptions) {
    super();
    this.root = o.prefix ? `${o.prefix.replace(/\/+$/, '')}/` : '';
    this.url = `s3://${o.bucket}/${this.root}`;
    this.target = { bucket: o.bucket, send: (kind, make, written) => this.send(kind, make, written) };
  }

  async writeLines(key: string, values: AsyncIterable<unknown> | Iterable<unknown>): Promise<OutputRef> {
    const name = this.name(key);
    const small = await uploadLines({ ...this.target, name, partBytes: this.o.partBytes ?? 8 * 1024 * 1024 }, values);
    return typeof small === 'string' ? this.writeValue(key, small) : { store: this.kind, key, bytes: small };
  }

  async create(key: string, value: unknown): Promise<boolean> {
    return putIfAbsent(this.target, this.name(key), JSON.stringify(value ?? null));
  }

  async has(key: string): Promise<boolean> {
    return (await this.head(key)) !== undefined;
  }

  async append(key: string, values: unknown[], written?: (span: LogSpan) => void): Promise<void> {
    if (values.length === 0) return;
    checkKey(key);
    const body = jsonLines(values);
    let n = this.nextPart.get(key) ?? 0;
    for (;;) {
      if (await putIfAbsent(this.target, this.root + partKey(key, n), body)) break;
      // Taken (by another appender, or before this store knew the log): continue after the last part.
      const parts = await this.parts(key, partKey(key, n));
      n = parts.length > 0 ? parts[parts.length - 1]!.n + 1 : n + 1;
    }
    this.nextPart.set(key, n + 1);
    // Part n is this group's alone: `tail(key, n)` reads it first (the log's own key is part 0).
    written?.({ from: n, to: n + 1, bytes: Buffer.byteLength(body) });
  }

  async lines(key: string): Promise<unknown[]> {
    return (await this.tail(key)).lines;
  }

  async tail(key: string, at = 0): Promise<{ lines: unknown[]; at: number }> {
    const texts: string[] = [];
    if (at === 0) {
      const first = await this.read(key);
      if (first === undefined) return { lines: [], at };
      texts.push(first);
      at = 1;
    }
    const parts = await this.parts(key, partKey(key, at - 1));
    // Bounded parallel reads, kept in part order; parts are numbered without gaps.
    for (let k = 0; k < parts.length; k += 8) {
      texts.push(...(await Promise.all(parts.slice(k, k + 8).map(async (p) => (await this.read(key, p.n)) ?? ''))));
    }
    return { lines: texts.flatMap(parseLines), at: parts.length > 0 ? parts[parts.length - 1]!.n + 1 : at };
  }

  async ref(key: string): Promise<OutputRef> {
    const head = await this.head(key);
    if (head === undefined) return { store: this.kind, key, bytes: 0 };
    const parts = await this.parts(key);
    return { store: this.kind, key, bytes: parts.reduce((s, p) => s + p.bytes, head) };
  }

  async list(prefix: string, o: ListOptions = {}): Promise<ListPage> {
    return listPage(this.target, this.root, prefix, o.after === undefined ? undefined : this.name(o.after), o.limit);
  }

  async size(key: string): Promise<number> {
    const bytes = await this.head(key);
    if (bytes === undefined) throw notFound(key);
    return bytes;
  }

  async readRange(key: string, offset: number, length: number): Promise<Buffer> {
    if (length <= 0) return Buffer.alloc(0);
    try {
      const res = await this.send('GetObject', (c) =>
        c.send(
          new GetObjectCommand({
            Bucket: this.o.bucket,
            Key: this.name(key),
            Range: `bytes=${offset}-${offset + length - 1}`,
          }),
        ),
      );
      return this.body(res.Body);
    } catch (err) {
      if (statusOf(err) === 404) throw notFound(key);
      if (statusOf(err) === 416) return Buffer.alloc(0);
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    // S3 answers 204 for a key that holds nothing.
    await this.send('DeleteObject', (c) =>
      c.send(new DeleteObjectCommand({ Bucket: this.o.bucket, Key: this.name(key) })),
    );
  }

  async close(): Promise<void> {
    this.o.client.destroy();
  }

  protected override async writeValue(key: string, text: string): Promise<OutputRef> {
    const body = Buffer.from(text);
    await this.send(
      'PutObject',
      (c) => c.send(new PutObjectCommand({ Bucket: this.o.bucket, Key: this.name(key), Body: body })),
      body.length,
    );
    return { store: this.kind, key, bytes: body.length };
  }

  /** The numbered parts of log `key` (after part `after`, if given), in order, with their sizes. */
  private parts(key: string, after?: string): Promise<LogPart[]> {
    return logParts(this.target, this.name(key), after ? this.root + after : undefined);
  }

  /** The text of value `key`, or of part `part` of log `key`; undefined when absent. */
  protected override async read(key: string, part = 0): Promise<string | undefined> {
    try {
      const res = await this.send('GetObject', (c) =>
        c.send(new GetObjectCommand({ Bucket: this.o.bucket, Key: this.root + partKey(checkKey(key), part) })),
      );
      return (await this.body(res.Body)).toString('utf8');
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw err;
    }
  }

  private async head(key: string): Promise<number | undefined> {
    try {
      return (
        (
          await this.send('HeadObject', (c) =>
            c.send(new HeadObjectCommand({ Bucket: this.o.bucket, Key: this.name(key) })),
          )
        ).ContentLength ?? 0
      );
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw err;
    }
  }

  private async body(body: { transformToByteArray(): Promise<Uint8Array> } | undefined): Promise<Buffer> {
    const bytes = body ? Buffer.from(await body.transformToByteArray()) : Buffer.alloc(0);
    this.stats.bytesRead += bytes.length;
    return bytes;
  }

  /** Sends one request (`make` builds the command), counted by kind; bytes read are counted as bodies are consumed. */
  private send<T>(kind: string, make: (c: S3Client) => Promise<T>, written = 0): Promise<T> {
    count(this.stats, kind, written);
    return make(this.o.client);
  }

  private name(key: string): string {
    return this.root + checkKey(key);
  }
}
