/** A local input read a line or two at a time (a refill's pages) gives the lines and cursors of one whole read. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLines } from '../../results/batch/input';
import { type LineCursor } from '../../results/store/line-pages';

describe('readLines in small pages', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-input-pages-'));
    file = join(dir, 'in.jsonl');
    // Lines longer than a small page's first read (8 KB), and one longer than the largest (256 KB);
    // blank lines, CRLF, no final newline.
    const lines: string[] = [];
    for (let i = 0; i < 400; i++) {
      if (i % 37 === 4) lines.push('');
      else if (i === 150) lines.push(JSON.stringify({ big: 'z'.repeat(300_000) }));
      else if (i % 50 === 7) lines.push(JSON.stringify({ i, pad: 'q'.repeat(20_000) }) + '\r');
      else lines.push(JSON.stringify({ i }));
    }
    writeFileSync(file, lines.join('\n'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const pages = (max: number, keep?: (i: number) => boolean) => {
    const out: ReturnType<typeof readLines>[] = [];
    let cursor: LineCursor = { line: 0, offset: 0 };
    for (;;) {
      const page = readLines(file, cursor, max, keep);
      out.push(page);
      cursor = page.cursor;
      if (page.eof || page.lines.length === 0) return out;
    }
  };

  it('pages of 1 and 2 lines hold the lines of one whole read, and end at its cursor', () => {
    const whole = readLines(file, { line: 0, offset: 0 }, 10_000);
    expect(whole.eof).toBe(true);
    expect(whole.lines.map((l) => l.i)).toContain(150);
    for (const max of [1, 2, 3]) {
      const paged = pages(max);
      expect(paged.flatMap((p) => p.lines)).toEqual(whole.lines);
      expect(paged.at(-1)!.cursor).toEqual(whole.cursor);
      expect(paged.every((p) => p.lines.length <= max)).toBe(true);
    }
    const keep = (i: number) => i % 5 === 0 || i === 150;
    const subset = readLines(file, { line: 0, offset: 0 }, 10_000, keep);
    expect(pages(1, keep).flatMap((p) => p.lines)).toEqual(subset.lines);
  });
});
