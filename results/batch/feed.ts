/**
 * An open batch input (a *feed*): a folder (local or `s3://` prefix, its location ends with `/`) of
 * JSONL segments that a writer appends one whole segment at a time, read as one virtual file: each
 * segment is named by the byte offset and line index where it starts, so a batch's cursor
 * (`{ line, offset }`) and line positions (`o`, `l`) mean what they mean in a file.
 */
import { type LineCursor, type PagedLine } from '../store/line-pages';
import { StoreError } from '../errors';
import { jsonLines, type ObjectStore } from '../store/object-store';

/** True for a feed location: a folder, written with its trailing `/`. */
export const isFeedLocation = (location: string): boolean => location.endsWith('/');

interface Segment {
  key: string;
  /** Byte offset and line index of its first line in the feed. */
  offset: number;
  line: number;
  /** Where the next segment starts (its own end), once its text was read: the next one's key. */
  end?: LineCursor;
  /** Its text, kept while it is one of the feed's last {@link RECENT} (a refill reads them at every job). */
  buf?: Buffer;
}

/** The feed's last segments whose text is kept in memory. */
const RECENT = 4;

/** Keeps the text of the last {@link RECENT} segments only. */
const trimmed = (segs: Segment[]): Segment[] => {
  for (let j = segs.length - RECENT - 1; j >= 0 && segs[j]!.buf; j--) delete segs[j]!.buf;
  return segs;
};

const SEGMENT = /^(\d{15})-(\d{12})\.jsonl$/;

/** The segment's key: its start, zero-padded so that key order is feed order. */
export const feedSegmentKey = (at: LineCursor): string =>
  `${String(at.offset).padStart(15, '0')}-${String(at.line).padStart(12, '0')}.jsonl`;

/** Notes the end of segment `s` from its whole text: the next segment's start. */
const ended = (s: Segment, buf: Buffer): Buffer => {
  let lines = 0;
  for (let at = buf.indexOf(10); at >= 0; at = buf.indexOf(10, at + 1)) lines++;
  s.end = { line: s.line + lines, offset: s.offset + buf.length };
  return buf;
};

/** The size of `key` in `store`, or undefined when there is none. */
const sizeIf = (store: ObjectStore, key: string): Promise<number | undefined> =>
  store.size(key).catch((err: unknown) => {
    if (err instanceof StoreError && err.code === 'NOT_FOUND') return undefined;
    throw err;
  });

/**
 * The segments seen so far of each feed this process reads (a segment, once written, stays: a
 * retried writer writes it again whole, the same), so a listing asks only for the keys after the
 * last one seen: reading a feed does not cost more as it grows. Bounded: past it, forgotten.
 */
const seen = new Map<string, Segment[]>();
const SEEN_FEEDS = 256;

/**
 * A feed whose end was looked at less than this long ago, and that this process has not written
 * since, is taken as it was (a stage's refill reads its feed at every job: two `stat`s each, on the
 * path from a finished job to its slot's next one). Rows another process writes are seen this much
 * later at most; this process's own (a pipeline round's) at once.
 */
const PROBE_MS = 100;
/** When each feed's end was last looked at, and the count of this process's writes to it then. */
const lookedAt = new Map<string, { at: number; writes: number }>();
/** This process's writes per feed. */
const writes = new Map<string, number>();

/** The feed's segments in order (`fresh`: its end looked at now, however recently it was). */
async function segments(store: ObjectStore, fresh = false): Promise<Segment[]> {
  let known = seen.get(store.url) ?? [];
  const last = lookedAt.get(store.url);
  const now = Date.now();
  const wrote = writes.get(store.url) ?? 0;
  if (!fresh && known.length > 0 && last && now - last.at < PROBE_MS && last.writes === wrote) return trimmed(known);
  if (!lookedAt.has(store.url) && lookedAt.size >= SEEN_FEEDS) lookedAt.clear();
  lookedAt.set(store.url, { at: now, writes: wrote });
  const probed = known.length > 0 ? await nextSegments(store, known) : undefined;
  if (probed) return trimmed(probed);
  if (probed === null) known = []; // the folder was replaced: listed afresh (no text kept of before)
  const out = [...known];
  let after = known.at(-1)?.key;
  for (;;) {
    const page = await store.list('', after === undefined ? {} : { after });
    for (const { key } of page.entries) {
      const m = SEGMENT.exec(key);
      if (m) out.push({ key, offset: Number(m[1]), line: Number(m[2]) });
    }
    if (page.next === undefined) break;
    after = page.next;
  }
  out.sort((a, b) => a.offset - b.offset);
  if (!seen.has(store.url) && seen.size >= SEEN_FEEDS) seen.clear();
  seen.set(store.url, out);
  return trimmed(out);
}

/**
 * The known segments and the ones written after them, found without a listing: a writer appends
 * each segment at the feed's end, so the next one's key is the last one's end (a listing reads the
 * whole folder, hundreds of keys, at every read of a stage's refill). Undefined when the last one's
 * end is not known (the keys after it are listed), null when its size is not what was read (the
 * folder was replaced: it is listed afresh).
 */
async function nextSegments(store: ObjectStore, known: Segment[]): Promise<Segment[] | undefined | null> {
  const last = known[known.length - 1]!;
  if (!last.end) return undefined;
  if ((await sizeIf(store, last.key)) !== last.end.offset - last.offset) return null;
  const out = [...known];
  for (let at = last.end; ;) {
    const key = feedSegmentKey(at);
    const size = await sizeIf(store, key);
    if (size === undefined) break;
    const s: Segment = { key, offset: at.offset, line: at.line };
    out.push(s);
    s.buf = ended(s, await store.readRange(key, 0, size));
    at = s.end!;
  }
  if (out.length > known.length) seen.set(store.url, out);
  return out;
}

/** Runs `fn` on the feed's segments; when one is gone (the folder was replaced) lists the feed afresh, once. */
async function onSegments<T>(store: ObjectStore, fn: (segs: Segment[]) => Promise<T>): Promise<T> {
  try {
    return await fn(await segments(store));
  } catch (err) {
    if (!(err instanceof StoreError && err.code === 'NOT_FOUND') || !seen.delete(store.url)) throw err;
    return fn(await segments(store));
  }
}

/** The segment holding byte `offset` (the last one starting at or before it). */
const segmentAt = (segs: Segment[], offset: number): number => {
  let k = -1;
  for (let j = 0; j < segs.length && segs[j]!.offset <= offset; j++) k = j;
  return k;
};

/**
 * Writes `rows` as the segment that starts at `at` (the feed's end as the writer knows it);
 * returns the feed's new end. Writing the same segment again replaces it whole (a retried writer).
 */
export async function appendFeedSegment(store: ObjectStore, at: LineCursor, rows: unknown[]): Promise<LineCursor> {
  if (rows.length === 0) return at;
  await store.putLines(feedSegmentKey(at), rows);
  if (!writes.has(store.url) && writes.size >= SEEN_FEEDS) writes.clear();
  writes.set(store.url, (writes.get(store.url) ?? 0) + 1);
  return { line: at.line + rows.length, offset: at.offset + Buffer.byteLength(jsonLines(rows)) };
}

/** Reads the feed in `store` as a batch input reads a file (blank lines are never written to a feed). */
export function feedReader(store: ObjectStore) {
  // A segment, once written, stays as it is: the text read of one of the last is used again.
  // (Kept only when `recent`: one of the feed's last RECENT, which `trimmed` lets go of as the feed grows.)
  const text = async (s: Segment, recent = false): Promise<Buffer> => {
    if (s.buf) return s.buf;
    const buf = ended(s, await store.readRange(s.key, 0, await store.size(s.key)));
    if (recent) s.buf = buf;
    return buf;
  };
  return {
    exists: async (): Promise<boolean> => true,
    count: (): Promise<{ lines: number; bytes: number }> =>
      onSegments(store, async (segs) => {
        let lines = 0;
        let bytes = 0;
        for (const s of segs) {
          const buf = await text(s);
          lines += buf.toString('utf8').split('\n').length - 1;
          bytes += buf.length;
        }
        return { lines, bytes };
      }),
    readLines: (
      from: LineCursor,
      max: number,
      keep?: (index: number) => boolean,
    ): Promise<{ lines: PagedLine[]; cursor: LineCursor; eof: boolean }> =>
      onSegments(store, async (segs) => {
        const lines: PagedLine[] = [];
        let cursor = from;
        for (let k = Math.max(0, segmentAt(segs, from.offset)); k < segs.length && lines.length < max; k++) {
          const s = segs[k]!;
          const buf = await text(s, k >= segs.length - RECENT);
          let pos = Math.max(0, cursor.offset - s.offset);
          let line = cursor.offset > s.offset ? cursor.line : s.line;
          while (pos < buf.length && lines.length < max) {
            const nl = buf.indexOf(10, pos);
            if (nl < 0) break;
            if (!keep || keep(line))
              lines.push({ i: line, o: s.offset + pos, l: nl - pos, text: buf.toString('utf8', pos, nl) });
            line++;
            pos = nl + 1;
          }
          cursor = { line, offset: s.offset + pos };
        }
        const last = segs[segs.length - 1];
        const end = last ? (last.end?.offset ?? last.offset + (await store.size(last.key))) : 0;
        return { lines, cursor, eof: cursor.offset >= end };
      }),
    readLineAt: (offset: number, length: number): Promise<string> =>
      onSegments(store, async (segs) => {
        const s = segs[segmentAt(segs, offset)];
        if (!s) throw new Error(`the feed has no line at byte ${offset}`);
        return (await store.readRange(s.key, offset - s.offset, length)).toString('utf8');
      }),
  };
}

/** Reads the feed's lines by index (the batch's input index), one segment at a time, kept for the reader's life. */
export function feedLineReader(store: ObjectStore): (index: number) => Promise<string> {
  let segs: Segment[] = [];
  const texts = new Map<string, string[]>();
  return async (index) => {
    const lastAt = (): Segment | undefined => [...segs].reverse().find((x) => x.line <= index);
    let s = lastAt();
    if (!s || !texts.has(s.key) || index - s.line >= texts.get(s.key)!.length) {
      segs = await segments(store, true);
      s = lastAt();
    }
    if (!s) throw new Error(`the feed has no line ${index}`);
    let lines = texts.get(s.key);
    if (!lines) {
      lines = (await store.readRange(s.key, 0, await store.size(s.key))).toString('utf8').split('\n');
      texts.set(s.key, lines);
    }
    const text = lines[index - s.line];
    if (text === undefined || text === '') throw new Error(`the feed has no line ${index}`);
    return text;
  };
}
