/**
 * The results store, asynchronous: one interface that a local directory and an S3-compatible
 * bucket both implement (values, JSON-lines logs appended durably, listing in pages, ranged reads),
 * and its key rules (errors: ../errors). `openResultsStore(url)` in ./open picks the implementation.
 */
import { type OutputRef } from '../../contracts';
import { StoreError } from '../errors';

/** One stored key as listed: its size, and when it was created (a log: its first append; a value: its last write), epoch ms. */
export interface StoreEntry {
  key: string;
  bytes: number;
  created: number;
}

/** A page of {@link ObjectStore.list}: `next` (pass it as `after`) when there may be more. */
export interface ListPage {
  entries: StoreEntry[];
  next?: string;
}

/** Options of {@link ObjectStore.list}. */
export interface ListOptions {
  /** Only keys sorting after this one (the `next` of the previous page). */
  after?: string;
  /** Entries per page at most. @default 1000 */
  limit?: number;
}

/** Requests (by operation kind) and bytes a store has made since it was opened. */
export interface StoreStats {
  /** Calls to the backend: S3 requests by command (`PutObject`...), or filesystem calls (`write`, `fsync`...). */
  requests: Record<string, number>;
  bytesWritten: number;
  bytesRead: number;
}

/** Options of {@link ObjectStore.append}. */
export interface AppendOptions {
  /** Most ms the local store's fsync of this group waits for later appends to share it. @default 0 */
  syncWithinMs?: number;
}

/**
 * Where an appended group lies in its log, as `tail` counts positions (a byte offset locally, a
 * part number on S3): `tail(key, from)` reads it first and `to` is the position after it, and its
 * size in bytes. Exact when this store is the log's only appender (as a daemon is of its inbox log);
 * with other appenders the local store's `from` may be short of others' writes since it opened the file.
 */
export interface LogSpan {
  from: number;
  to: number;
  bytes: number;
}

/**
 * Where big outputs, stream chunks, journals and batch segments live, outside workflow history.
 * Keys are relative paths (`a/b/c.jsonl`; no `..`, empty segment or `#`). A key holds either a
 * value (`put`, `putLines`, `writeLines`, `create`) or a log (`append`); both read with `lines`.
 * Every write is durable before its promise resolves (fsync'd file and folder; an S3 PUT answered
 * 200), so a caller may acknowledge once it resolves.
 */
export interface ObjectStore {
  /** `fs` or `s3`: the `store` of the references it returns. */
  readonly kind: 'fs' | 's3';
  /** Where it is: a directory path or `s3://bucket/prefix`. */
  readonly url: string;
  readonly stats: StoreStats;
  /** Writes a JSON value whole, replacing any value of `key`. */
  put(key: string, value: unknown): Promise<OutputRef>;
  /**
   * Writes several JSON values, each whole as `put` does; every one is durable once it resolves (a
   * failure may leave some written). The local store syncs each folder once for all of them, not
   * once per value.
   */
  putAll(values: { key: string; value: unknown }[]): Promise<void>;
  /** Writes JSON lines as one value whole (readers never see part of it). */
  putLines(key: string, values: unknown[]): Promise<OutputRef>;
  /** Like `putLines` from an iterable, never whole in memory (S3: a multipart upload when large). */
  writeLines(key: string, values: AsyncIterable<unknown> | Iterable<unknown>): Promise<OutputRef>;
  /** Writes `value` only if `key` holds nothing yet; false (and nothing written) when it does. Exactly one of concurrent creators wins. */
  create(key: string, value: unknown): Promise<boolean>;
  /** The JSON value of `key`; throws {@link StoreError} `NOT_FOUND` when absent. */
  get(ref: OutputRef | string): Promise<unknown>;
  /** The JSON value of `key`, or undefined when absent. */
  find(key: string): Promise<unknown>;
  has(key: string): Promise<boolean>;
  /**
   * Appends JSON lines to the log `key` as one record group. Concurrent appenders never lose or
   * duplicate a group; groups are read back in one order (S3: numbered objects, never
   * read-modify-write). `written`, when given, may be called once the group is written but not yet
   * durable (readers may see it from then on; the local store calls it before its fsync): it
   * resolves once durable, as always. It is given where the group lies in the log ({@link LogSpan}).
   * `o.syncWithinMs`: the local store's fsync may wait that long for later appends to the log to
   * share it (group commit: each still resolves only once an fsync after its write is done).
   */
  append(key: string, values: unknown[], written?: (span: LogSpan) => void, o?: AppendOptions): Promise<void>;
  /** Every line of `key` (a log, or a value written as lines), parsed, in order; [] when absent. */
  lines(key: string): Promise<unknown[]>;
  /**
   * The lines of log `key` appended since position `at` (0: from the start) and the position after
   * them: a follower reads only what is new (a byte offset locally, a part number on S3).
   */
  tail(key: string, at?: number): Promise<{ lines: unknown[]; at: number }>;
  /** A reference to `key` with its total size (0 when absent). */
  ref(key: string): Promise<OutputRef>;
  /** Keys starting with `prefix` (at any depth), in key order, a page at a time. */
  list(prefix: string, options?: ListOptions): Promise<ListPage>;
  /** Bytes of the value `key`; `NOT_FOUND` when absent. */
  size(key: string): Promise<number>;
  /** `length` bytes of the value `key` from byte `offset` (fewer at its end); `NOT_FOUND` when absent. */
  readRange(key: string, offset: number, length: number): Promise<Buffer>;
  /** Removes the value `key` (not a log's parts); nothing when it is absent. */
  delete(key: string): Promise<void>;
  /** Releases connections (S3); the store is unusable afterwards. */
  close(): Promise<void>;
}

/** Checks a key's shape (throws `INVALID_KEY`); `#` is reserved for the numbered parts of S3 logs. */
export function checkKey(key: string): string {
  const bad =
    key === '' ||
    key.startsWith('/') ||
    key.includes('#') ||
    key.includes('\\') ||
    key.split('/').some((p) => p === '' || p === '.' || p === '..');
  if (bad || [...key].some((c) => c.charCodeAt(0) < 0x20))
    throw new StoreError('INVALID_KEY', `invalid results key ${JSON.stringify(key)}`);
  return key;
}

/** The key of a reference or a key. */
export const keyOf = (ref: OutputRef | string): string => (typeof ref === 'string' ? ref : ref.key);

/** JSON lines text of values (`undefined` is written as null, as JSON has no undefined). */
export const jsonLines = (values: unknown[]): string => values.map((v) => `${JSON.stringify(v ?? null)}\n`).join('');

/** Parses JSON lines text (blank lines skipped). */
export const parseLines = (text: string): unknown[] =>
  text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as unknown);

/** Every key starting with `prefix`, in key order (all pages). */
export async function allKeys(store: ObjectStore, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let after: string | undefined;
  do {
    const page = await store.list(prefix, after === undefined ? {} : { after });
    out.push(...page.entries.map((e) => e.key));
    after = page.next;
  } while (after !== undefined);
  return out;
}

/** Counters of a store (see {@link StoreStats}). */
export function newStats(): StoreStats {
  return { requests: {}, bytesWritten: 0, bytesRead: 0 };
}

/** Counts one backend request of `kind`. */
export function count(stats: StoreStats, kind: string, written = 0, read = 0): void {
  stats.requests[kind] = (stats.requests[kind] ?? 0) + 1;
  stats.bytesWritten += written;
  stats.bytesRead += read;
}
