import { appendFileSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type OutputRef } from '../contracts';

/**
 * Where big outputs, stream chunks and submission journals live, outside workflow history.
 * Keys are relative paths; the filesystem store keeps them under one directory (shared
 * storage when several daemons run).
 */
export interface ResultsStore {
  /** Writes a JSON value durably; returns its reference. */
  put(key: string, value: unknown): OutputRef;
  get(ref: OutputRef | string): unknown;
  has(key: string): boolean;
  /** Writes JSON lines as one file, atomically and durably (a rewrite replaces it whole). */
  putLines(key: string, values: unknown[]): OutputRef;
  /** Appends one JSON line durably (fsync) before returning: stream chunks are acknowledged after this. */
  append(key: string, value: unknown): void;
  /** Appends JSON lines with one write and one fsync. */
  appendMany(key: string, values: unknown[]): void;
  /** Every line appended under `key`, parsed. */
  lines(key: string): unknown[];
  ref(key: string): OutputRef;
  /** Keys starting with `prefix` (a folder plus a name prefix), oldest first. */
  keys(prefix: string): string[];
}

/** {@link ResultsStore} on the local filesystem (atomic writes, fsync'd appends). */
export class FsResultsStore implements ResultsStore {
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  put(key: string, value: unknown): OutputRef {
    return this.write(key, JSON.stringify(value ?? null));
  }

  putLines(key: string, values: unknown[]): OutputRef {
    return this.write(key, values.map((v) => `${JSON.stringify(v ?? null)}\n`).join(''));
  }

  private write(key: string, text: string): OutputRef {
    const file = this.path(key);
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    const fd = openSync(tmp, 'r');
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, file);
    return { store: 'fs', key, bytes: Buffer.byteLength(text) };
  }

  get(ref: OutputRef | string): unknown {
    const key = typeof ref === 'string' ? ref : ref.key;
    return JSON.parse(readFileSync(this.path(key), 'utf8')) as unknown;
  }

  has(key: string): boolean {
    return existsSync(this.path(key));
  }

  append(key: string, value: unknown): void {
    this.appendMany(key, [value]);
  }

  appendMany(key: string, values: unknown[]): void {
    const file = this.path(key);
    mkdirSync(dirname(file), { recursive: true });
    const fd = openSync(file, 'a');
    try {
      appendFileSync(fd, values.map((v) => `${JSON.stringify(v ?? null)}\n`).join(''));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  lines(key: string): unknown[] {
    if (!this.has(key)) return [];
    return readFileSync(this.path(key), 'utf8')
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as unknown);
  }

  ref(key: string): OutputRef {
    const bytes = this.has(key) ? readFileSync(this.path(key)).length : 0;
    return { store: 'fs', key, bytes };
  }

  keys(prefix: string): string[] {
    const slash = prefix.lastIndexOf('/');
    const folder = slash >= 0 ? prefix.slice(0, slash) : '';
    const start = prefix.slice(slash + 1);
    let names: string[];
    try {
      names = readdirSync(this.path(folder || '.'));
    } catch {
      return [];
    }
    return names
      .filter((n) => n.startsWith(start) && !n.endsWith('.tmp'))
      .map((n) => (folder ? `${folder}/${n}` : n))
      .sort((a, b) => statSync(this.path(a)).birthtimeMs - statSync(this.path(b)).birthtimeMs);
  }

  private path(key: string): string {
    if (key !== '.' && key.split('/').some((p) => p === '..' || p === '')) throw new Error(`invalid results key "${key}"`);
    return join(this.dir, key);
  }
}
