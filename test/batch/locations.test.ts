/** A batch input at an s3:// URL (MinIO) reads as the same file does locally: counts, pages, cursors, subsets, single lines; output prefixes. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchInput, outputStore, valueLines, type BatchInput } from '../../results/batch/locations';
import { isStoreError } from '../../results/errors';
import { type ObjectStore } from '../../results/store/object-store';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { openResultsStore } from '../../results/store/open';
import { s3ClientFromEnv } from '../../results/store/s3-client';
import { type LineCursor as Cursor } from '../../results/store/line-pages';
import { startS3Server, type S3Server } from '../helpers/s3';

describe('batch input and output locations: s3:// as a local path', () => {
  let s3: S3Server;
  let bucket: ObjectStore;
  let dir: string;
  let text: string;
  beforeAll(async () => {
    s3 = await startS3Server();
    bucket = openResultsStore(s3.url(), { env: s3.env });
    dir = mkdtempSync(join(tmpdir(), 'sluice-locations-'));
    // About 1.5 MB (several 256 KiB ranged reads), blank lines, a line longer than a read, CRLF, no final newline.
    const lines: string[] = [];
    for (let i = 0; i < 6000; i++) {
      if (i % 97 === 5) lines.push('');
      else if (i === 3001) lines.push(JSON.stringify({ big: 'z'.repeat(300_000) }));
      else lines.push(JSON.stringify({ i, pad: 'p'.repeat(i % 200) }) + (i % 50 === 0 ? '\r' : ''));
    }
    text = lines.join('\n');
    writeFileSync(join(dir, 'in.jsonl'), text);
  });
  afterAll(async () => {
    await bucket?.close();
    await s3?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Every page of `input` of `max` lines (with `keep`), as read. */
  const pages = async (input: BatchInput, max: number, keep?: (i: number) => boolean) => {
    const out: { lines: { i: number; o: number; l: number; text: string }[]; cursor: Cursor; eof: boolean }[] = [];
    let cursor: Cursor = { line: 0, offset: 0 };
    for (;;) {
      const page = await input.readLines(cursor, max, keep);
      out.push(page);
      cursor = page.cursor;
      if (page.eof || page.lines.length === 0) return out;
    }
  };

  it('counts, pages (with and without a subset) and single lines match the local reader', async () => {
    const object = await uploadText('in/data.jsonl', text);
    const local = batchInput(join(dir, 'in.jsonl'));
    const remote = batchInput(object, { env: s3.env });
    expect(await remote.exists()).toBe(true);
    expect(await remote.count()).toEqual(await local.count());
    expect(await pages(remote, 700)).toEqual(await pages(local, 700));
    const keep = (i: number) => i % 7 === 3 || i === 3001;
    const subset = await pages(remote, 50, keep);
    expect(subset).toEqual(await pages(local, 50, keep));
    expect(subset.flatMap((p) => p.lines.map((l) => l.i))).toContain(3001);
    const some = (await pages(local, 1000)).flatMap((p) => p.lines).filter((_, k) => k % 333 === 0);
    for (const l of some) expect(await remote.readLineAt(l.o, l.l)).toBe(l.text);
  });

  it('a missing object does not exist; a URL naming no object is INVALID_URL', async () => {
    expect(await batchInput(s3.url('in/none.jsonl'), { env: s3.env }).exists()).toBe(false);
    for (const bad of [s3.url(''), s3.url('in/'), 's3://Bad_Bucket/x.jsonl']) {
      let code = 'ok';
      try {
        batchInput(bad, { env: s3.env });
      } catch (err) {
        code = isStoreError(err) ? err.code : String(err);
      }
      expect(code, bad).toBe('INVALID_URL');
    }
  });

  it('an output prefix: written with writeLines, read back a page at a time; a local output dir is only created by a write', async () => {
    const out = outputStore(s3.url('out/b1/'), { env: s3.env });
    const rows = Array.from({ length: 2500 }, (_, i) => ({ index: i, output: { s: 'o'.repeat(i % 300) } }));
    await out.writeLines('results.jsonl', rows);
    const back: unknown[] = [];
    for await (const v of valueLines(out, 'results.jsonl')) back.push(v);
    expect(back).toEqual(rows);
    expect(await bucket.has('out/b1/results.jsonl')).toBe(true);
    const none: unknown[] = [];
    for await (const v of valueLines(out, 'missing.jsonl')) none.push(v);
    expect(none).toEqual([]);
    const localDir = join(dir, 'not-yet', 'out');
    const local = outputStore(localDir);
    expect(await local.has('results.jsonl')).toBe(false);
    expect(await batchInput(localDir).exists()).toBe(false);
    await local.put('summary.json', { done: 1 });
    expect(await local.get('summary.json')).toEqual({ done: 1 });
  });

  /** Writes raw text as an object (not JSON lines), returns its URL. */
  async function uploadText(key: string, body: string): Promise<string> {
    const client = s3ClientFromEnv({ env: s3.env });
    try {
      await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: body }));
    } finally {
      client.destroy();
    }
    return s3.url(key);
  }
});
