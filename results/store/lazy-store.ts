/**
 * A results store whose implementation is loaded at its first use: an `s3://` store loads the AWS
 * SDK only when a command or activity actually reads or writes it, so opening one (every client
 * does, at construction) costs nothing (issue 23: the CLI loads only what it uses).
 */
import { type OutputRef } from '../../contracts';
import {
  newStats,
  type ListOptions,
  type ListPage,
  type AppendOptions,
  type LogSpan,
  type ObjectStore,
  type StoreStats,
} from './object-store';

/** The store `open()` resolves to, loaded once; `kind` and `url` are known before. */
export class LazyStore implements ObjectStore {
  private loading?: Promise<ObjectStore>;
  private loaded?: ObjectStore;
  private readonly none = newStats();

  constructor(
    readonly kind: ObjectStore['kind'],
    readonly url: string,
    private readonly open: () => Promise<ObjectStore>,
  ) {}

  /** The loaded store's counters (zero before it is loaded). */
  get stats(): StoreStats {
    return this.loaded?.stats ?? this.none;
  }

  private store(): Promise<ObjectStore> {
    this.loading ??= this.open().then((s) => (this.loaded = s));
    return this.loading;
  }

  async put(key: string, value: unknown): Promise<OutputRef> {
    return (await this.store()).put(key, value);
  }
  async putAll(values: { key: string; value: unknown }[]): Promise<void> {
    return (await this.store()).putAll(values);
  }
  async putLines(key: string, values: unknown[]): Promise<OutputRef> {
    return (await this.store()).putLines(key, values);
  }
  async writeLines(key: string, values: AsyncIterable<unknown> | Iterable<unknown>): Promise<OutputRef> {
    return (await this.store()).writeLines(key, values);
  }
  async create(key: string, value: unknown): Promise<boolean> {
    return (await this.store()).create(key, value);
  }
  async get(ref: OutputRef | string): Promise<unknown> {
    return (await this.store()).get(ref);
  }
  async find(key: string): Promise<unknown> {
    return (await this.store()).find(key);
  }
  async has(key: string): Promise<boolean> {
    return (await this.store()).has(key);
  }
  async append(key: string, values: unknown[], written?: (span: LogSpan) => void, o?: AppendOptions): Promise<void> {
    return (await this.store()).append(key, values, written, o);
  }
  async lines(key: string): Promise<unknown[]> {
    return (await this.store()).lines(key);
  }
  async tail(key: string, at?: number): Promise<{ lines: unknown[]; at: number }> {
    return (await this.store()).tail(key, at);
  }
  async ref(key: string): Promise<OutputRef> {
    return (await this.store()).ref(key);
  }
  async list(prefix: string, options?: ListOptions): Promise<ListPage> {
    return (await this.store()).list(prefix, options);
  }
  async size(key: string): Promise<number> {
    return (await this.store()).size(key);
  }
  async readRange(key: string, offset: number, length: number): Promise<Buffer> {
    return (await this.store()).readRange(key, offset, length);
  }
  async delete(key: string): Promise<void> {
    return (await this.store()).delete(key);
  }
  /** Closes the store if it was loaded (an unused one holds nothing). */
  async close(): Promise<void> {
    if (this.loading) await (await this.loading).close();
  }
}
