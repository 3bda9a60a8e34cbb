/**
 * Where a batch reads its input and writes its output files: a local path (read with positioned
 * reads, as before) or an `s3://bucket/key` URL (read by ranged reads a page at a time, never whole
 * in memory); the output directory or `s3://` prefix as a results store (`writeLines`, `put`).
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { isStoreError, StoreError } from '../errors';
import { FsObjectStore } from '../store/fs-object-store';
import { type ObjectStore } from '../store/object-store';
import { readLinePage, type LineCursor, type PagedLine } from '../store/line-pages';
import { openResultsStore } from '../store/open';
import { parseS3Url, type OpenStoreOptions } from '../store/s3-url';
import { countChunks, countLines, readLineAt, readLines } from './input';
import { feedReader, isFeedLocation } from './feed';

/** True for `s3://` locations (else a local path). */
export const isS3Location = (location: string): boolean => location.startsWith('s3://');

/** A batch's input: counted, read a page at a time by byte offset, one line by its position. */
export interface BatchInput {
  readonly location: string;
  /** False when there is no such file or object. */
  exists(): Promise<boolean>;
  /** Non-blank lines and bytes (streamed). */
  count(): Promise<{ lines: number; bytes: number }>;
  /** Up to `max` non-blank lines from `from` (with `keep`: only the lines whose index it accepts), as the local reader. */
  readLines(
    from: LineCursor,
    max: number,
    keep?: (index: number) => boolean,
  ): Promise<{ lines: PagedLine[]; cursor: LineCursor; eof: boolean }>;
  /** The text of one line by its offset and length. */
  readLineAt(offset: number, length: number): Promise<string>;
}

// One store per bucket or output prefix, for the life of the process (S3 clients keep their connections).
const stores = new Map<string, ObjectStore>();

function cached(url: string, o: OpenStoreOptions): ObjectStore {
  if (o.env) return openResultsStore(url, o);
  let s = stores.get(url);
  if (!s) {
    s = openResultsStore(url, o);
    if (isS3Location(url)) stores.set(url, s);
  }
  return s;
}

/** The bucket store and key of an `s3://bucket/key` input; INVALID_URL when it names no object. */
export function s3Object(location: string, o: OpenStoreOptions = {}): { store: ObjectStore; key: string } {
  const { bucket, prefix } = parseS3Url(location);
  if (prefix === '' || location.endsWith('/'))
    throw new StoreError('INVALID_URL', `${JSON.stringify(location)} names no object (s3://bucket/key expected)`);
  return { store: cached(`s3://${bucket}`, o), key: prefix };
}

/** How a batch's input is read. */
export interface BatchInputOptions extends OpenStoreOptions {
  /**
   * The source is an open feed (a folder of segments ending with `/`, ./feed.ts): only a batch started
   * with `feed` (a pipeline's stage) reads one; any other source must name a file or an object.
   * @default false
   */
  feed?: boolean;
}

/** The input at `location` (a path, `s3://bucket/key`, or with `o.feed` a feed folder; AWS variables from `o.env`, default the process's). */
export function batchInput(location: string, o: BatchInputOptions = {}): BatchInput {
  // An open input (a pipeline's stage feed): a folder of segments read as one file (./feed.ts).
  if (o.feed && isFeedLocation(location)) return { location, ...feedReader(outputStore(location, o)) };
  if (!isS3Location(location)) {
    return {
      location,
      exists: async () => existsSync(location) && statSync(location).isFile(),
      count: async () => countLines(location),
      readLines: async (from, max, keep) => readLines(location, from, max, keep),
      readLineAt: async (offset, length) => readLineAt(location, offset, length),
    };
  }
  const { store, key } = s3Object(location, o);
  return {
    location,
    exists: () => store.has(key),
    count: async () =>
      countChunks(
        (async function* () {
          const size = await store.size(key);
          for (let pos = 0; pos < size; pos += CHUNK)
            yield await store.readRange(key, pos, Math.min(CHUNK, size - pos));
        })(),
      ),
    async readLines(from, max, keep) {
      const size = await store.size(key);
      const lines: PagedLine[] = [];
      let cursor = from;
      let eof = cursor.offset >= size;
      // Lines the subset refuses are passed over like blank lines: read on until `max` are kept.
      while (lines.length < max && !eof) {
        const page = await readLinePage(store, key, cursor, max - lines.length, { size });
        for (const l of page.lines) if (!keep || keep(l.i)) lines.push(l);
        cursor = page.cursor;
        eof = page.eof;
        if (page.lines.length === 0) break;
      }
      return { lines, cursor, eof };
    },
    readLineAt: async (offset, length) => (await store.readRange(key, offset, length)).toString('utf8'),
  };
}

const CHUNK = 1024 * 1024;

/**
 * The input of a batch that `openBatch` accepted (its later steps): a folder there is a feed, since
 * only a batch started with `feed` gets past `openBatch` with one.
 */
export const openedInput = (source: string): BatchInput => batchInput(source, { feed: isFeedLocation(source) });

/**
 * The store of a batch's output directory or `s3://` prefix (results.jsonl, dead-letter.jsonl,
 * summary.json, attempts/). A directory is created by the first write, not here (readers create nothing).
 */
export function outputStore(outDir: string, o: OpenStoreOptions = {}): ObjectStore {
  return isS3Location(outDir) ? cached(outDir, o) : new FsObjectStore(resolve(outDir));
}

/** Every JSON line of the value `key`, read a page at a time (never whole in memory); nothing when absent. */
export async function* valueLines(store: ObjectStore, key: string): AsyncGenerator<unknown> {
  let size: number;
  try {
    size = await store.size(key);
  } catch (err) {
    if (isStoreError(err, 'NOT_FOUND')) return;
    throw err;
  }
  let cursor: LineCursor = { line: 0, offset: 0 };
  for (;;) {
    const page = await readLinePage(store, key, cursor, 1000, { size });
    for (const l of page.lines) yield JSON.parse(l.text) as unknown;
    cursor = page.cursor;
    if (page.eof || page.lines.length === 0) return;
  }
}
