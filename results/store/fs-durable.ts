/**
 * The durable steps of the local results store: a value written to a temporary file and fsync'd
 * before it is renamed or linked into place, the folder fsync'd when an entry appears, and folders
 * known to exist remembered (each filesystem call is a thread-pool round trip).
 */
import { mkdir, open, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StoreError } from '../errors';
import { count, type StoreStats } from './object-store';

/**
 * Modes of what the store creates: private to the daemon's user (outputs, journals and the
 * generated webhook secret live here). Folders that already exist keep theirs.
 */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** Temporary files of the store (`<name>.<pid>.<seq>.tmp`): never listed. */
export const TMP = /\.\d+\.\d+\.tmp$/;
let tmpSeq = 0;

export const isCode = (err: unknown, code: string): boolean =>
  (err as NodeJS.ErrnoException | undefined)?.code === code;

/**
 * Runs a write of `file`; a full filesystem (ENOSPC, or EDQUOT: a quota) becomes a
 * {@link StoreError} `NO_SPACE` naming the file (the errno of `write(2)` names no path), so the
 * daemon's log and the failed activity say where space is missing. Other errors pass as they are.
 */
export async function writing<T>(file: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (code !== 'ENOSPC' && code !== 'EDQUOT') throw err;
    throw new StoreError('NO_SPACE', `no space left on device (${code}) writing ${file}: free some space there`, {
      cause: err,
    });
  }
}

/** Errors of a filesystem (or quota, or file size limit) that has no room left. */
const FULL = ['ENOSPC', 'EDQUOT', 'EFBIG'];

/**
 * Appends `buf` whole or not at all: a write that stops part-way because the disk filled up is cut
 * off again, as the retry would append those lines a second time and the half line left would glue
 * onto the next append and make the log unreadable. With no room left no other appender can have
 * written after it, so the part is the file's tail (other errors leave the file as it is).
 */
export async function appendWhole(fh: FileHandle, buf: Buffer): Promise<void> {
  let done = 0;
  try {
    while (done < buf.length) done += (await fh.write(buf, done)).bytesWritten;
  } catch (err) {
    const full = FULL.includes((err as NodeJS.ErrnoException | undefined)?.code ?? '');
    if (full && done > 0) await fh.truncate((await fh.stat()).size - done).catch(() => undefined);
    throw err;
  }
}

/** Most folders and logs remembered as existing (a long-lived daemon writes under ever new run folders). */
const REMEMBERED = 10_000;

/** Adds `item` to a bounded set of things known to exist. */
export const remember = (set: Set<string>, item: string): void => {
  if (set.size >= REMEMBERED) set.clear();
  set.add(item);
};

/** Durable file steps, counted in the store's stats. */
export class DurableFiles {
  /** Folders known to exist: a write there makes no mkdir call. */
  private readonly dirs = new Set<string>();

  constructor(private readonly stats: StoreStats) {}

  /** Writes `chunks` to a new temporary file beside `file` and fsyncs it; the caller renames or links it into place. */
  async temp(file: string, chunks: AsyncIterable<string> | Iterable<string>): Promise<{ tmp: string; bytes: number }> {
    await this.ensureDir(dirname(file));
    const tmp = `${file}.${process.pid}.${tmpSeq++}.tmp`;
    count(this.stats, 'open');
    const fh = await open(tmp, 'w', FILE_MODE).catch(async (err: unknown) => {
      if (!isCode(err, 'ENOENT')) throw err;
      // The folder was removed meanwhile: create it again.
      this.dirs.delete(dirname(file));
      await this.ensureDir(dirname(file));
      return open(tmp, 'w', FILE_MODE);
    });
    let bytes = 0;
    try {
      for await (const text of chunks) {
        const n = Buffer.byteLength(text);
        count(this.stats, 'write', n);
        bytes += n;
        await fh.writeFile(text);
      }
      count(this.stats, 'fsync');
      await fh.sync();
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    } finally {
      await fh.close();
    }
    return { tmp, bytes };
  }

  /** Creates `dir` (and its parents) unless known to exist. */
  async ensureDir(dir: string): Promise<void> {
    if (this.dirs.has(dir)) return;
    count(this.stats, 'mkdir');
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    remember(this.dirs, dir);
  }

  /** Fsyncs a folder, so an entry created or renamed in it survives a crash. */
  async syncDir(dir: string): Promise<void> {
    count(this.stats, 'fsync');
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  }
}
