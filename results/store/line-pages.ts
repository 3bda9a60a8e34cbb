/**
 * Reading a JSON-lines object of a results store a page at a time, by byte offset with ranged
 * reads (a batch input at an s3:// URL): never the whole object in memory, the same cursor and
 * line numbering as the local input reader (activities/batch/input.ts).
 */
import { type ObjectStore } from './object-store';

/** Where the next page starts: a 0-based line number and its byte offset. */
export interface LineCursor {
  line: number;
  offset: number;
}

/** One line: its index (0-based line number), byte offset, length in bytes, and text. */
export interface PagedLine {
  i: number;
  o: number;
  l: number;
  text: string;
}

/** Options of {@link readLinePage}. */
export interface LinePageOptions {
  /** Bytes per ranged read. @default 262144 (256 KiB) */
  chunkBytes?: number;
  /** The object's size when known (saves a HEAD request per page). */
  size?: number;
}

/**
 * Up to `max` non-blank lines of `key` from `from`. Blank lines are no inputs but keep their line
 * number. Reads `chunkBytes` at a time; a line longer than a chunk is gathered across reads.
 */
export async function readLinePage(
  store: ObjectStore,
  key: string,
  from: LineCursor,
  max: number,
  o: LinePageOptions = {},
): Promise<{ lines: PagedLine[]; cursor: LineCursor; eof: boolean }> {
  const size = o.size ?? (await store.size(key));
  const chunk = o.chunkBytes ?? 256 * 1024;
  const lines: PagedLine[] = [];
  let line = from.line;
  let offset = from.offset;
  let pending: Buffer[] = [];
  let pos = offset;
  const take = (bytes: Buffer, start: number): void => {
    const text = bytes.toString('utf8');
    if (text.trim() !== '') lines.push({ i: line, o: start, l: bytes.length, text });
    line++;
  };
  while (lines.length < max && pos < size) {
    const buf = await store.readRange(key, pos, Math.min(chunk, size - pos));
    if (buf.length === 0) break;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl < 0) break;
      pending.push(buf.subarray(start, nl));
      take(Buffer.concat(pending), offset);
      offset = pos + nl + 1;
      pending = [];
      start = nl + 1;
      if (lines.length >= max) break;
    }
    if (lines.length >= max) break;
    pending.push(Buffer.from(buf.subarray(start)));
    pos += buf.length;
  }
  // A last line without a newline.
  if (lines.length < max && offset < size && pos >= size) {
    take(Buffer.concat(pending), offset);
    offset = size;
  }
  return { lines, cursor: { line, offset }, eof: offset >= size };
}
