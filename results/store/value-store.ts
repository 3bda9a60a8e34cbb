/** What both results stores do alike: JSON values over each one's own read and write of a key's whole text, and NOT_FOUND. */
import { type OutputRef } from '../../contracts';
import { StoreError } from '../errors';
import { jsonLines, keyOf, newStats } from './object-store';

/** The `NOT_FOUND` error of a key that holds nothing. */
export const notFound = (key: string): StoreError => new StoreError('NOT_FOUND', `no results stored under "${key}"`);

/**
 * The part of `ObjectStore` (./object-store) the local and the S3 store share: values written
 * and read as JSON through each one's own `writeValue` and `read` of a key's whole text.
 */
export abstract class ValueStore {
  readonly stats = newStats();

  /** The whole text of `key`; undefined when it holds nothing. */
  protected abstract read(key: string): Promise<string | undefined>;

  /** Writes `text` as the value of `key` whole, replacing any. */
  protected abstract writeValue(key: string, text: string): Promise<OutputRef>;

  put(key: string, value: unknown): Promise<OutputRef> {
    return this.writeValue(key, JSON.stringify(value ?? null));
  }

  /** Values written at once by {@link putAll}. */
  protected static readonly PARALLEL = 32;

  async putAll(values: { key: string; value: unknown }[]): Promise<void> {
    for (let i = 0; i < values.length; i += ValueStore.PARALLEL)
      await Promise.all(values.slice(i, i + ValueStore.PARALLEL).map((v) => this.put(v.key, v.value)));
  }

  putLines(key: string, values: unknown[]): Promise<OutputRef> {
    return this.writeValue(key, jsonLines(values));
  }

  async get(ref: OutputRef | string): Promise<unknown> {
    const text = await this.read(keyOf(ref));
    if (text === undefined) throw notFound(keyOf(ref));
    return JSON.parse(text) as unknown;
  }

  async find(key: string): Promise<unknown> {
    const text = await this.read(key);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  }
}
