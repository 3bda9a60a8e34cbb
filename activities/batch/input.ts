/**
 * Reading a batch's JSONL input in pages by byte offset (never whole in memory), and turning a
 * line into a job submission: the auto-detection rule, BAD_INPUT reasons, per-key values.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { type InputFormat, type JobSubmission, type Policy } from '../../contracts';
import { type Cursor } from './types';

/** One line read from the file: its index (0-based line number), byte offset and length. */
export interface RawLine {
  i: number;
  o: number;
  l: number;
  text: string;
}

const CHUNK = 256 * 1024;

/**
 * Reads up to `max` non-blank lines from `from`. Blank lines are no inputs (they keep their line
 * number, so an index is always the 0-based line number of its input). With `keep` (a
 * retry-failed run), lines whose index it refuses are passed over like blank lines.
 */
export function readLines(
  path: string,
  from: Cursor,
  max: number,
  keep?: (index: number) => boolean,
): { lines: RawLine[]; cursor: Cursor; eof: boolean } {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSize(path);
    const lines: RawLine[] = [];
    let line = from.line;
    let offset = from.offset;
    let pending: Buffer[] = [];
    let pendingStart = offset;
    let pos = offset;
    const buf = Buffer.allocUnsafe(CHUNK);
    while (lines.length < max && pos < size) {
      const n = readSync(fd, buf, 0, CHUNK, pos);
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

const BODY_KEYS = new Set(['input', 'policy', 's3Config', 'webhook']);

/**
 * A line as a job submission. `auto`: an object whose `input` is an object and whose other keys
 * are all submission fields (`policy`, `s3Config`, `webhook`) is a body; any other object is the
 * input itself. Anything else is BAD_INPUT (with the reason).
 */
export function parseLine(
  text: string,
  format: InputFormat,
  policy: Policy | undefined,
): { body: JobSubmission } | { bad: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { bad: `not valid JSON: ${(err as Error).message.slice(0, 200)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { bad: `not a JSON object (${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value})` };
  const obj = value as Record<string, unknown>;
  const inputIsObject = typeof obj.input === 'object' && obj.input !== null && !Array.isArray(obj.input);
  const looksLikeBody = inputIsObject && Object.keys(obj).every((k) => BODY_KEYS.has(k));
  if (format === 'body' || (format === 'auto' && looksLikeBody)) {
    if (!inputIsObject) return { bad: 'a body line needs "input" as a JSON object' };
    const body: JobSubmission = { input: obj.input as Record<string, unknown> };
    if (obj.policy !== undefined) body.policy = obj.policy as Policy;
    if (obj.s3Config !== undefined) body.s3Config = obj.s3Config as JobSubmission['s3Config'];
    return { body };
  }
  return { body: policy ? { input: obj, policy } : { input: obj } };
}

/** The value at a JSON path (`$.a.b[0]`) of an input, as a string key; undefined when absent. */
export function keyOf(input: Record<string, unknown>, path: string): string | undefined {
  let v: unknown = input;
  for (const m of path.slice(1).matchAll(/\.([A-Za-z_][\w-]*)|\[(\d+)\]/g)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = m[1] !== undefined ? (v as Record<string, unknown>)[m[1]] : (v as unknown[])[Number(m[2])];
  }
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : JSON.stringify(v);
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
