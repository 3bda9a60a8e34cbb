/** An open batch input (a feed of segments) reads like one file: cursors, line positions, its end. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendFeedSegment, feedReader, feedSegmentKey } from '../../results/batch/feed';
import { batchInput, outputStore } from '../../results/batch/locations';
import { FsObjectStore } from '../../results/store/fs-object-store';

describe('feed input', () => {
  it('reads segments appended over time as one file, by cursor, and one line by its position', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-feed-')) + '/';
    const store = outputStore(dir);
    // Only a batch started with `feed` reads a folder; any other batch's folder is no input file.
    expect(await batchInput(dir).exists()).toBe(false);
    const input = batchInput(dir, { feed: true });
    expect(await input.readLines({ line: 0, offset: 0 }, 10)).toEqual({
      lines: [],
      cursor: { line: 0, offset: 0 },
      eof: true,
    });
    let end = await appendFeedSegment(store, { line: 0, offset: 0 }, [{ n: 0 }, { n: 1 }, { n: 2 }]);
    const first = await input.readLines({ line: 0, offset: 0 }, 2);
    expect(first.lines.map((l) => JSON.parse(l.text))).toEqual([{ n: 0 }, { n: 1 }]);
    expect(first.eof).toBe(false);
    const second = await input.readLines(first.cursor, 10);
    expect(second.lines.map((l) => [l.i, JSON.parse(l.text)])).toEqual([[2, { n: 2 }]]);
    expect(second).toMatchObject({ cursor: end, eof: true });
    end = await appendFeedSegment(store, end, [{ n: 3 }, { n: 4 }]);
    const third = await input.readLines(second.cursor, 10);
    expect(third.lines.map((l) => [l.i, JSON.parse(l.text)])).toEqual([
      [3, { n: 3 }],
      [4, { n: 4 }],
    ]);
    expect(third).toMatchObject({ cursor: end, eof: true });
    // Reading across segments from the start, and one line by its offset and length.
    const all = await input.readLines({ line: 0, offset: 0 }, 100);
    expect(all.lines.map((l) => l.i)).toEqual([0, 1, 2, 3, 4]);
    const l4 = all.lines[4]!;
    expect(JSON.parse(await input.readLineAt(l4.o, l4.l))).toEqual({ n: 4 });
    expect(await input.count()).toEqual({ lines: 5, bytes: end.offset });
  });

  it('reads a feed folder that was replaced (its earlier segments gone) as it is now', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-feed-')) + '/';
    const input = batchInput(dir, { feed: true });
    const end = await appendFeedSegment(outputStore(dir), { line: 0, offset: 0 }, [{ n: 0 }, { n: 1 }]);
    await appendFeedSegment(outputStore(dir), end, [{ n: 2 }]);
    expect((await input.readLines({ line: 0, offset: 0 }, 10)).lines).toHaveLength(3);
    rmSync(dir, { recursive: true });
    await appendFeedSegment(outputStore(dir), { line: 0, offset: 0 }, [{ m: 0 }, { m: 1 }, { m: 2 }, { m: 3 }]);
    const now = await input.readLines({ line: 0, offset: 0 }, 10);
    expect(now.lines.map((l) => JSON.parse(l.text))).toEqual([{ m: 0 }, { m: 1 }, { m: 2 }, { m: 3 }]);
    expect(now.eof).toBe(true);
  });

  it('finds the segments appended after a read without listing the folder again (a stage refill reads it at every job)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-feed-'));
    const store = new FsObjectStore(dir);
    const reader = feedReader(store);
    let end = await appendFeedSegment(store, { line: 0, offset: 0 }, [{ n: 0 }]);
    let page = await reader.readLines({ line: 0, offset: 0 }, 10);
    const listed = store.stats.requests.readdir ?? 0;
    expect(listed).toBeGreaterThan(0);
    for (let n = 1; n <= 5; n++) {
      end = await appendFeedSegment(store, end, [{ n }, { n: n * 10 }]);
      if (n % 2 === 0) continue; // two segments written between reads: both found
      page = await reader.readLines(page.cursor, 10);
      expect(page.eof).toBe(true);
      expect(page.cursor).toEqual(end);
    }
    const all = await reader.readLines({ line: 0, offset: 0 }, 100);
    expect(all.lines.map((l) => JSON.parse(l.text).n)).toEqual([0, 1, 10, 2, 20, 3, 30, 4, 40, 5, 50]);
    expect(store.stats.requests.readdir ?? 0).toBe(listed);
    rmSync(dir, { recursive: true });
  });
  it("sees this process's segments at once, another's within 100 ms (its end is not looked at for every read)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-feed-')) + '/';
    try {
      const store = outputStore(dir);
      const input = batchInput(dir, { feed: true });
      const end = await appendFeedSegment(store, { line: 0, offset: 0 }, [{ n: 0 }]);
      expect((await input.readLines({ line: 0, offset: 0 }, 10)).lines).toHaveLength(1);
      // Another process's segment (written as appendFeedSegment writes it, but not by it): seen a moment later.
      await store.putLines(feedSegmentKey(end), [{ n: 1 }]);
      await new Promise((r) => setTimeout(r, 120));
      const later = await input.readLines(end, 10);
      expect(later.lines.map((l) => JSON.parse(l.text))).toEqual([{ n: 1 }]);
      // This process's own: at once.
      const own = await appendFeedSegment(store, later.cursor, [{ n: 2 }]);
      const now = await input.readLines(later.cursor, 10);
      expect(now.lines.map((l) => JSON.parse(l.text))).toEqual([{ n: 2 }]);
      expect(now.cursor).toEqual(own);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
