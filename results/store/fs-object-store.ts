/**
 * The results store in a local (or shared) directory: one file per key (a log is one file appended
 * with O_APPEND, its handle kept open while it is appended to: ./fs-log-handles), written to a
 * temporary name, fsync'd and renamed; the folder fsync'd when an entry appears (the durable file
 * steps are in ./fs-durable).
 */
import { type Stats } from 'node:fs';
import { link, open, readFile, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type OutputRef } from '../../contracts';
import { DurableFiles, isCode, writing } from './fs-durable';
import { LogHandles } from './fs-log-handles';
import { keysUnder } from './fs-keys';
import {
  checkKey,
  count,
  jsonLines,
  parseLines,
  type ListOptions,
  type ListPage,
  type AppendOptions,
  type LogSpan,
  type ObjectStore,
  type StoreEntry,
} from './object-store';
import { notFound, ValueStore } from './value-store';

export class FsObjectStore extends ValueStore implements ObjectStore {
  readonly kind = 'fs' as const;
  private readonly files = new DurableFiles(this.stats);
  /** The logs' append handles, kept open while appended to. */
  private readonly logs = new LogHandles(this.files, this.stats);

  constructor(readonly url: string) {
    super();
  }

  async writeLines(key: string, values: AsyncIterable<unknown> | Iterable<unknown>): Promise<OutputRef> {
    async function* texts() {
      let batch: unknown[] = [];
      for await (const v of values) {
        batch.push(v);
        if (batch.length >= 1000) yield jsonLines(batch.splice(0));
      }
      if (batch.length > 0) yield jsonLines(batch);
      batch = [];
    }
    return this.replace(key, texts());
  }

  async create(key: string, value: unknown): Promise<boolean> {
    const file = this.path(key);
    return writing(file, () => this.createFile(file, value));
  }

  private async createFile(file: string, value: unknown): Promise<boolean> {
    const { tmp } = await this.files.temp(file, [JSON.stringify(value ?? null)]);
    try {
      count(this.stats, 'link');
      await link(tmp, file);
    } catch (err) {
      if (isCode(err, 'EEXIST')) return false;
      throw err;
    } finally {
      count(this.stats, 'unlink');
      await unlink(tmp).catch(() => undefined);
    }
    await this.files.syncDir(dirname(file));
    return true;
  }

  async has(key: string): Promise<boolean> {
    return (await this.stat(key))?.isFile() ?? false;
  }

  async append(key: string, values: unknown[], written?: (span: LogSpan) => void, o?: AppendOptions): Promise<void> {
    if (values.length === 0) return;
    const file = this.path(key);
    // One write(2) with O_APPEND: concurrent appenders (processes on one host) never interleave.
    await writing(file, () => this.logs.append(file, Buffer.from(jsonLines(values)), written, o?.syncWithinMs));
  }

  async lines(key: string): Promise<unknown[]> {
    const text = await this.read(key);
    // Only whole lines: an append may be in progress.
    return text === undefined ? [] : parseLines(text.slice(0, text.lastIndexOf('\n') + 1));
  }

  async tail(key: string, at = 0): Promise<{ lines: unknown[]; at: number }> {
    const size = (await this.stat(key))?.size ?? 0;
    if (size <= at) return { lines: [], at };
    const buf = await this.readRange(key, at, size - at);
    // Only whole lines: an append may be in progress.
    const end = buf.lastIndexOf(10) + 1;
    return { lines: parseLines(buf.subarray(0, end).toString('utf8')), at: at + end };
  }

  async ref(key: string): Promise<OutputRef> {
    return { store: this.kind, key, bytes: (await this.stat(key))?.size ?? 0 };
  }

  async list(prefix: string, o: ListOptions = {}): Promise<ListPage> {
    const keys = await keysUnder(this.url, prefix, this.stats);
    const limit = o.limit ?? 1000;
    const after =
      o.after === undefined ? keys : keys.filter((k) => Buffer.compare(Buffer.from(k), Buffer.from(o.after!)) > 0);
    const page = after.slice(0, limit);
    const entries: StoreEntry[] = [];
    for (const key of page) {
      const st = await this.stat(key);
      if (st) entries.push({ key, bytes: st.size, created: st.birthtimeMs || st.mtimeMs });
    }
    return after.length > limit ? { entries, next: page[page.length - 1]! } : { entries };
  }

  async size(key: string): Promise<number> {
    const st = await this.stat(key);
    if (!st) throw notFound(key);
    return st.size;
  }

  async readRange(key: string, offset: number, length: number): Promise<Buffer> {
    let fh: FileHandle;
    try {
      count(this.stats, 'open');
      fh = await open(this.path(key), 'r');
    } catch (err) {
      if (isCode(err, 'ENOENT')) throw notFound(key);
      throw err;
    }
    try {
      const buf = Buffer.alloc(length);
      const { bytesRead } = await fh.read(buf, 0, length, offset);
      count(this.stats, 'read', 0, bytesRead);
      return buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  }

  async delete(key: string): Promise<void> {
    this.logs.forget(this.path(key));
    count(this.stats, 'unlink');
    await unlink(this.path(key)).catch((err: unknown) => {
      if (!isCode(err, 'ENOENT')) throw err;
    });
  }

  async close(): Promise<void> {
    await this.logs.closeAll();
  }

  protected override writeValue(key: string, text: string): Promise<OutputRef> {
    return this.replace(key, [text]);
  }

  /**
   * Each value to a temporary file, fsync'd and renamed over its key (as `put`), then each folder
   * fsync'd once, after every rename into it: one folder fsync for all the values, not one each
   * (a pipeline round writes the context of every input it moved into one folder).
   */
  override async putAll(values: { key: string; value: unknown }[]): Promise<void> {
    const dirs = new Set<string>();
    for (let i = 0; i < values.length; i += FsObjectStore.PARALLEL) {
      await Promise.all(
        values.slice(i, i + FsObjectStore.PARALLEL).map(async ({ key, value }) => {
          await this.replace(key, [JSON.stringify(value ?? null)], false);
          dirs.add(dirname(this.path(key)));
        }),
      );
    }
    await Promise.all([...dirs].map((d) => this.files.syncDir(d)));
  }

  /** Writes `chunks` to a temporary file, fsyncs it and renames it over `key`; then fsyncs its folder unless `syncDir` is false (the caller does). */
  private async replace(
    key: string,
    chunks: AsyncIterable<string> | Iterable<string>,
    syncDir = true,
  ): Promise<OutputRef> {
    const file = this.path(key);
    this.logs.forget(file);
    return writing(file, async () => {
      const { tmp, bytes } = await this.files.temp(file, chunks);
      count(this.stats, 'rename');
      await rename(tmp, file);
      if (syncDir) await this.files.syncDir(dirname(file));
      return { store: this.kind, key, bytes };
    });
  }

  protected override async read(key: string): Promise<string | undefined> {
    try {
      const buf = await readFile(this.path(key));
      count(this.stats, 'read', 0, buf.length);
      return buf.toString('utf8');
    } catch (err) {
      if (isCode(err, 'ENOENT') || isCode(err, 'EISDIR')) return undefined;
      throw err;
    }
  }

  private async stat(key: string): Promise<Stats | undefined> {
    try {
      count(this.stats, 'stat');
      return await stat(this.path(key));
    } catch (err) {
      if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) return undefined;
      throw err;
    }
  }

  private path(key: string): string {
    return join(this.url, checkKey(key));
  }
}
