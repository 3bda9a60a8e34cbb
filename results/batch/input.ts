/**
 * Reading a local JSONL file in pages by byte offset (never whole in memory) and counting its
 * lines: a batch input at a path. Same cursor and line numbering as the ranged reader of an s3://
 * input (../store/line-pages.ts, whose `LineCursor` and `PagedLine` this reader returns too).
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { type LineCursor, type PagedLine } from '../store/line-pages';

const CHUNK = 256 * 1024;
/**
 * The first read of a page: about what `max` lines of a few hundred bytes take, at least MIN_CHUNK,
 * growing fourfold while a page needs more (up to CHUNK). A step's refill reads a line or two at a
 * time as slots free: a 256 KB buffer each was most of the daemon's garbage in a batch (issue 23).
 */
const MIN_CHUNK = 8 * 1024;
const LINE_GUESS = 512;

/**
 * Reads up to `max` non-blank lines from `from`. Blank lines are no inputs (they keep their line
 * number, so an index is always the 0-based line number of its input). With `keep` (a
 * rerun of failed inputs), lines whose index it refuses are passed over like blank lines.
 */
export function readLines(
  path: string,
  from: LineCursor,
  max: number,
  keep?: (index: number) => boolean,
): { lines: PagedLine[]; cursor: LineCursor; eof: boolean } {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSize(path);
    const lines: PagedLine[] = [];
    let line = from.line;
    let offset = from.offset;
    let pending: Buffer[] = [];
    let pendingStart = offset;
    let pos = offset;
    let chunk = Math.min(CHUNK, Math.max(MIN_CHUNK, max * LINE_GUESS), size - pos);
    let buf = Buffer.allocUnsafe(Math.max(1, chunk));
    while (lines.length < max && pos < size) {
      if (buf.length < chunk) buf = Buffer.allocUnsafe(chunk);
      const n = readSync(fd, buf, 0, buf.length, pos);
      if (n <= 0) break;
      let start = 0;
      for (;;) {
        const nl = buf.indexOf(10, start);
        if (nl < 0 || nl >= n) break;
        pending.push(Buffer.from(buf.subarray(start, nl)));
        if (!keep || keep(line)) {
          const bytes = Buffer.concat(pending);
          const text = bytes.toString('utf8');
          if (text.trim() !== '') lines.push({ i: line, o: pendingStart, l: bytes.length, text });
        }
        line++;
        offset = pos + nl + 1;
        pending = [];
        pendingStart = offset;
        start = nl + 1;
        if (lines.length >= max) break;
      }
      if (lines.length >= max) break;
      pending.push(Buffer.from(buf.subarray(start, n)));
      pos += n;
      chunk = Math.min(CHUNK, chunk * 4);
    }
    // A last line without a newline.
    if (lines.length < max && offset < size && pos >= size) {
      const bytes = Buffer.concat(pending);
      const text = bytes.toString('utf8');
      if (text.trim() !== '' && (!keep || keep(line))) lines.push({ i: line, o: pendingStart, l: bytes.length, text });
      line++;
      offset = size;
    }
    return { lines, cursor: { line, offset }, eof: offset >= size };
  } finally {
    closeSync(fd);
  }
}

function fstatSize(path: string): number {
  return statSync(path).size;
}

/** The text of one line, by its offset and length. */
export function readLineAt(path: string, o: number, l: number): string {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(l);
    readSync(fd, buf, 0, l, o);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Counts non-blank lines and bytes of chunks of text, fed in order. */
class LineCounter {
  lines = 0;
  bytes = 0;
  private lastNonBlank = false;
  private sawContent = false;

  add(buf: Buffer, n = buf.length): void {
    for (let k = 0; k < n; k++) {
      const c = buf[k]!;
      if (c === 10) {
        if (this.lastNonBlank) this.lines++;
        this.lastNonBlank = false;
      } else if (c !== 32 && c !== 9 && c !== 13) {
        this.lastNonBlank = true;
        this.sawContent = true;
      }
    }
    this.bytes += n;
  }

  result(): { lines: number; bytes: number } {
    const lines = this.lines + (this.lastNonBlank ? 1 : 0);
    return { lines: this.sawContent ? lines : 0, bytes: this.bytes };
  }
}

/** Lines and bytes of a file, counted by streaming it. */
export function countLines(path: string): { lines: number; bytes: number } {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    const counter = new LineCounter();
    let pos = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, pos);
      if (n <= 0) break;
      counter.add(buf, n);
      pos += n;
    }
    return counter.result();
  } finally {
    closeSync(fd);
  }
}

/** Lines and bytes of an object read in chunks (ranged reads of an s3:// input), as {@link countLines}. */
export async function countChunks(chunks: AsyncIterable<Buffer>): Promise<{ lines: number; bytes: number }> {
  const counter = new LineCounter();
  for await (const buf of chunks) counter.add(buf);
  return counter.result();
}
