/**
 * The results store's contract, run unchanged against a local directory and a real S3-compatible
 * server (MinIO from the install step): values, logs under concurrent appenders, create-if-absent,
 * listing past S3's 1,000-key page, large and multipart objects, paged ranged reads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLinePage, type LineCursor, type PagedLine } from '../../results/store/line-pages';
import { isStoreError } from '../../results/errors';
import { allKeys, type LogSpan, type ObjectStore } from '../../results/store/object-store';
import { openResultsStore } from '../../results/store/open';
import { startS3Server, type S3Server } from '../helpers/s3';

/** A backend under test: `open(name)` gives a fresh, empty store (its own folder or key prefix) — call it again for a second client of the same store. */
interface Backend {
  open(name: string): ObjectStore;
  setup(): Promise<void>;
  teardown(): Promise<void>;
}

function fsBackend(): Backend {
  let dir = '';
  return {
    open: (name) => openResultsStore(join(dir, name)),
    async setup() {
      dir = mkdtempSync(join(tmpdir(), 'sluice-store-'));
    },
    async teardown() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function s3Backend(): Backend {
  let s3: S3Server | undefined;
  return {
    open: (name) => openResultsStore(s3!.url(name), { env: s3!.env, partBytes: 5 * 1024 * 1024 }),
    async setup() {
      s3 = await startS3Server();
    },
    async teardown() {
      await s3?.stop();
    },
  };
}

const code = async (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'resolved',
    (err: unknown) => (isStoreError(err) ? err.code : String(err)),
  );

/** Runs `fn` over `items`, `n` at a time. */
async function pool<T>(items: T[], n: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

describe.each([
  ['local directory', fsBackend()],
  ['S3 (MinIO)', s3Backend()],
])('results store on %s', (_name, backend) => {
  const opened: ObjectStore[] = [];
  const open = (name: string): ObjectStore => {
    const s = backend.open(name);
    opened.push(s);
    return s;
  };
  beforeAll(() => backend.setup());
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close()));
    await backend.teardown();
  });

  it('puts, gets and replaces values; a missing key is NOT_FOUND for get and size, undefined for find, [] for lines', async () => {
    const s = open('values');
    expect(await s.put('run/a.json', { x: 1 })).toEqual({ store: s.kind, key: 'run/a.json', bytes: 7 });
    expect(await s.get('run/a.json')).toEqual({ x: 1 });
    expect(await s.get({ store: s.kind, key: 'run/a.json', bytes: 7 })).toEqual({ x: 1 });
    await s.put('run/a.json', { x: 2, y: 'é' });
    expect(await s.find('run/a.json')).toEqual({ x: 2, y: 'é' });
    expect(await s.has('run/a.json')).toBe(true);
    expect(await s.has('run')).toBe(false);
    expect((await s.ref('run/a.json')).bytes).toBe(Buffer.byteLength(JSON.stringify({ x: 2, y: 'é' })));
    expect(await code(s.get('run/missing.json'))).toBe('NOT_FOUND');
    expect(await code(s.size('run/missing.json'))).toBe('NOT_FOUND');
    expect(await code(s.readRange('run/missing.json', 0, 10))).toBe('NOT_FOUND');
    expect(await s.find('run/missing.json')).toBeUndefined();
    expect(await s.has('run/missing.json')).toBe(false);
    expect(await s.lines('run/missing.jsonl')).toEqual([]);
    expect(await s.ref('run/missing.json')).toEqual({ store: s.kind, key: 'run/missing.json', bytes: 0 });
    for (const bad of ['', '/abs', '../up', 'a//b', 'a/./b', 'a#1', 'a\\b'])
      expect(await code(s.put(bad, 1)), bad).toBe('INVALID_KEY');
  });

  it('puts several values at once, each whole and readable once it resolves, replacing any (one folder sync locally)', async () => {
    const s = open('put-all');
    await s.put('run/context/3.json', { i: 3, old: true });
    const values = Array.from({ length: 40 }, (_, i) => ({ key: `run/context/${i}.json`, value: { i } }));
    const fsyncsBefore = s.stats.requests.fsync ?? 0;
    await s.putAll([...values, { key: 'run/other/x.json', value: 'x' }]);
    for (const { key, value } of values) expect(await s.get(key)).toEqual(value);
    expect(await s.get('run/other/x.json')).toBe('x');
    // Locally: one fsync per file and one per folder (two folders), not two per value.
    if (s.kind === 'fs') expect((s.stats.requests.fsync ?? 0) - fsyncsBefore).toBe(41 + 2);
    expect(await code(s.putAll([{ key: '../up', value: 1 }]))).toBe('INVALID_KEY');
    await s.putAll([]);
  });

  it('deletes a value (listed no more), and deleting a key that holds nothing is no error', async () => {
    const s = open('deletes');
    await s.put('run/context/1.json', { i: 1 });
    await s.put('run/context/2.json', { i: 2 });
    await s.delete('run/context/1.json');
    await s.delete('run/context/1.json');
    await s.delete('run/context/never.json');
    expect(await s.find('run/context/1.json')).toBeUndefined();
    expect((await s.list('run/context/')).entries.map((e) => e.key)).toEqual(['run/context/2.json']);
    expect(await code(s.delete('../up'))).toBe('INVALID_KEY');
  });

  it('reads back lines written whole and lines appended, and a write is visible to another client once it resolves', async () => {
    const s = open('lines');
    await s.putLines('seg.jsonl', [{ i: 0 }, null, 'two', undefined]);
    expect(await s.lines('seg.jsonl')).toEqual([{ i: 0 }, null, 'two', null]);
    await s.append('log.jsonl', [1]);
    const other = open('lines');
    expect(await other.lines('log.jsonl')).toEqual([1]);
    await other.append('log.jsonl', [2, 3]);
    await s.append('log.jsonl', [4]);
    await s.append('log.jsonl', []);
    expect(await s.lines('log.jsonl')).toEqual([1, 2, 3, 4]);
    expect(await other.has('log.jsonl')).toBe(true);
    expect((await other.ref('log.jsonl')).bytes).toBe(8);
  });

  it('tails a log: each read returns only the lines appended since the last one', async () => {
    const writer = open('tail');
    const follower = open('tail');
    expect(await follower.tail('chunks.jsonl')).toEqual({ lines: [], at: 0 });
    await writer.append('chunks.jsonl', [{ c: 0 }]);
    const first = await follower.tail('chunks.jsonl');
    expect(first.lines).toEqual([{ c: 0 }]);
    expect(await follower.tail('chunks.jsonl', first.at)).toEqual({ lines: [], at: first.at });
    await writer.append('chunks.jsonl', [{ c: 1 }, { c: 2 }]);
    await open('tail').append('chunks.jsonl', [{ c: 3 }]);
    const second = await follower.tail('chunks.jsonl', first.at);
    expect(second.lines).toEqual([{ c: 1 }, { c: 2 }, { c: 3 }]);
    expect(second.at).toBeGreaterThan(first.at);
    expect((await follower.tail('chunks.jsonl', second.at)).lines).toEqual([]);
  });

  it('tells where an appended group lies: tail from its start reads just it, and ends where it ends', async () => {
    const s = open('spans');
    const spans: LogSpan[] = [];
    for (let g = 0; g < 3; g++) await s.append('log.jsonl', [{ g }, { g, n: 1 }], (span) => spans.push(span));
    expect(spans).toHaveLength(3);
    expect(spans[1]!.from).toBe(spans[0]!.to);
    expect(spans[2]!.from).toBe(spans[1]!.to);
    const reader = open('spans');
    expect(await reader.tail('log.jsonl', spans[1]!.from)).toEqual({
      lines: [{ g: 1 }, { g: 1, n: 1 }, { g: 2 }, { g: 2, n: 1 }],
      at: spans[2]!.to,
    });
    expect(spans[0]!.bytes).toBe(Buffer.byteLength('{"g":0}\n{"g":0,"n":1}\n'));
  });

  it.skipIf(_name !== 'local directory')(
    "appends to a log through one open file while it is appended to, each group still fsync'd; a deleted log is created anew",
    async () => {
      const s = open('handle');
      const opens = (): number => s.stats.requests.open ?? 0;
      const fsyncs = (): number => s.stats.requests.fsync ?? 0;
      const [o0, f0] = [opens(), fsyncs()];
      for (let g = 0; g < 20; g++) await s.append('inbox.jsonl', [{ g }]);
      expect(opens() - o0).toBe(1);
      expect(fsyncs() - f0).toBe(20 + 1); // and its folder's, once, as the log appeared
      expect(await open('handle').lines('inbox.jsonl')).toHaveLength(20);
      await s.delete('inbox.jsonl');
      await s.append('inbox.jsonl', [{ g: 'again' }]);
      expect(await open('handle').lines('inbox.jsonl')).toEqual([{ g: 'again' }]);
      await s.putLines('inbox.jsonl', [{ replaced: true }]);
      await s.append('inbox.jsonl', [{ g: 'after' }]);
      expect(await open('handle').lines('inbox.jsonl')).toEqual([{ replaced: true }, { g: 'after' }]);
    },
  );

  it('never loses nor duplicates a record when several clients append to one log at once', async () => {
    const writers = Array.from({ length: 4 }, () => open('appends'));
    await Promise.all(
      writers.map(async (w, k) => {
        for (let g = 0; g < 25; g++)
          await w.append('journal.jsonl', [
            { w: k, g, r: 0 },
            { w: k, g, r: 1 },
          ]);
      }),
    );
    const got = (await open('appends').lines('journal.jsonl')) as { w: number; g: number; r: number }[];
    expect(got).toHaveLength(4 * 25 * 2);
    expect(new Set(got.map((x) => `${x.w}/${x.g}/${x.r}`)).size).toBe(200);
    for (let k = 0; k < 4; k++) {
      // Each writer's groups in its order, each group's lines together.
      const mine = got.filter((x) => x.w === k).map((x) => x.g * 2 + x.r);
      expect(mine).toEqual(Array.from({ length: 50 }, (_, n) => n));
    }
    for (let n = 0; n < got.length; n += 2)
      expect([got[n]!.r, got[n + 1]!.r, got[n]!.g]).toEqual([0, 1, got[n + 1]!.g]);
  });

  it('creates a key only if absent: exactly one of concurrent creators wins and its value stays', async () => {
    const clients = Array.from({ length: 8 }, () => open('create'));
    const won = await Promise.all(clients.map((c, k) => c.create('steps/result-3.json', { by: k })));
    expect(won.filter(Boolean)).toHaveLength(1);
    const winner = won.indexOf(true);
    expect(await clients[0]!.get('steps/result-3.json')).toEqual({ by: winner });
    expect(await clients[1]!.create('steps/result-3.json', { by: 'late' })).toBe(false);
    expect(await clients[1]!.get('steps/result-3.json')).toEqual({ by: winner });
  });

  it('lists more than 1,000 keys in key order, a page at a time, a log once', async () => {
    const s = open('listing');
    const keys = Array.from({ length: 1500 }, (_, n) => `run/outcomes/${String(n).padStart(9, '0')}.jsonl`);
    await pool(keys, 32, (k) => s.putLines(k, [{ k }]));
    await s.put('run/outside.json', 1);
    await s.append('run/outcomes-log.jsonl', [1]);
    await s.append('run/outcomes-log.jsonl', [2]);
    expect(await allKeys(s, 'run/outcomes/')).toEqual(keys);
    const pages: number[] = [];
    let after: string | undefined;
    const seen: string[] = [];
    do {
      const page = await s.list('run/outcomes/', { limit: 700, ...(after ? { after } : {}) });
      pages.push(page.entries.length);
      seen.push(...page.entries.map((e) => e.key));
      after = page.next;
    } while (after);
    expect(seen).toEqual(keys);
    expect(pages.slice(0, 2)).toEqual([700, 700]);
    expect(pages.reduce((a, b) => a + b)).toBe(1500);
    const tail = await s.list('run/outcomes', { after: keys[1498]! });
    expect(tail.entries.map((e) => e.key)).toEqual([keys[1499]]);
    expect(tail.next).toBeUndefined();
    expect(tail.entries[0]!.bytes).toBe(Buffer.byteLength(`${JSON.stringify({ k: keys[1499] })}\n`));
    expect(tail.entries[0]!.created).toBeGreaterThan(Date.now() - 600_000);
    expect((await s.list('run/outcomes-')).entries.map((e) => e.key)).toEqual(['run/outcomes-log.jsonl']);
    const everything = await allKeys(s, 'run/');
    expect(everything).toHaveLength(1502);
    expect(everything.filter((k) => !k.startsWith('run/outcomes/'))).toEqual([
      'run/outcomes-log.jsonl',
      'run/outside.json',
    ]);
    expect((await s.list('run/nothing-here/')).entries).toEqual([]);
  });

  it('stores large values and streams large line sets (a multipart upload on S3)', async () => {
    const s = open('large');
    const big = 'x'.repeat(12 * 1024 * 1024);
    await s.put('big.json', { big });
    expect(((await s.get('big.json')) as { big: string }).big.length).toBe(big.length);
    async function* rows() {
      for (let n = 0; n < 60_000; n++) yield { n, pad: 'y'.repeat(200) };
    }
    const ref = await s.writeLines('rows.jsonl', rows());
    expect(ref.bytes).toBe(await s.size('rows.jsonl'));
    expect(ref.bytes).toBeGreaterThan(12 * 1024 * 1024);
    if (s.kind === 's3') expect(s.stats.requests.UploadPart).toBeGreaterThanOrEqual(3);
    const lines = (await s.lines('rows.jsonl')) as { n: number }[];
    expect(lines).toHaveLength(60_000);
    expect(lines[59_999]!.n).toBe(59_999);
    const row = (n: number): string => `${JSON.stringify({ n, pad: 'y'.repeat(200) })}\n`;
    let offset = 0;
    for (let n = 0; n < 12_345; n++) offset += Buffer.byteLength(row(n));
    expect((await s.readRange('rows.jsonl', offset, Buffer.byteLength(row(12_345)))).toString()).toBe(row(12_345));
    expect((await s.readRange('rows.jsonl', ref.bytes - 2, 100)).toString()).toBe('}\n');
    expect((await s.readRange('rows.jsonl', ref.bytes + 5, 100)).length).toBe(0);
  });

  it('reads a JSONL object in pages by byte offset, never reading much more than a page', async () => {
    const s = open('pages');
    const values = Array.from({ length: 3000 }, (_, n) => ({
      n,
      text: n === 1234 ? 'z'.repeat(10_000) : 'v'.repeat(n % 50),
    }));
    const ref = await s.putLines('in.jsonl', values);
    let cursor: LineCursor = { line: 0, offset: 0 };
    const got: PagedLine[] = [];
    const before = s.stats.bytesRead;
    const first = await readLinePage(s, 'in.jsonl', cursor, 100, { chunkBytes: 4096, size: ref.bytes });
    expect(s.stats.bytesRead - before).toBeLessThan(first.cursor.offset + 4096);
    got.push(...first.lines);
    cursor = first.cursor;
    for (let eof = first.eof; !eof;) {
      const page = await readLinePage(s, 'in.jsonl', cursor, 100, { chunkBytes: 4096 });
      expect(page.lines.length).toBeLessThanOrEqual(100);
      got.push(...page.lines);
      cursor = page.cursor;
      eof = page.eof;
    }
    expect(got.map((l) => l.i)).toEqual(values.map((_, n) => n));
    expect(got.map((l) => JSON.parse(l.text) as unknown)).toEqual(values);
    expect(cursor).toEqual({ line: 3000, offset: ref.bytes });
    for (const l of [got[0]!, got[1234]!, got[2999]!])
      expect((await s.readRange('in.jsonl', l.o, l.l)).toString()).toBe(l.text);
  });
});
