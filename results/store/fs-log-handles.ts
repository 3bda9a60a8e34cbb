/**
 * The local store's logs kept open for appending: a log appended to again within `idleMs` reuses
 * its file handle (a batch's inbox log takes a group at every few webhooks: the open and the close
 * of each append saved, issue 22), closed once idle, on the key's delete or replace, and on the
 * store's close. Each append is still one write(2) with O_APPEND, then an fsync of the handle that
 * began after its write: appends written while an fsync runs (or within the `syncWithinMs` one of
 * them allows) share the next one (group commit), each resolved once it is done.
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { appendWhole, FILE_MODE, isCode, type DurableFiles } from './fs-durable';
import { count, type LogSpan, type StoreStats } from './object-store';

interface Held {
  fh: FileHandle;
  /** The file's size as this handle knows it: its size when opened, plus what it appended since. */
  size: number;
  /** Appends in progress: closed only once none is. */
  users: number;
  /** No longer handed out (idle, dropped, or failed): closed once its last user is done. */
  done: boolean;
  idle?: NodeJS.Timeout;
  /** The fsync in progress. */
  syncing?: Promise<void>;
  /** The next fsync, not begun: appends written now are covered by it. */
  next?: Promise<void>;
}

/** Open append handles of log files, one per file. */
export class LogHandles {
  /** Handles being opened. */
  private readonly opening = new Map<string, Promise<Held>>();
  /** Handles open and handed out. */
  private readonly open = new Map<string, Held>();

  constructor(
    private readonly files: DurableFiles,
    private readonly stats: StoreStats,
    private readonly idleMs = 2000,
  ) {}

  /**
   * Appends `buf` to `file` (created if absent, its folder fsync'd then) and fsyncs it; `written`
   * is called between the write and the fsync with where the group lies in the file. The fsync may
   * wait up to `syncWithinMs` for later appends to share it.
   */
  async append(file: string, buf: Buffer, written?: (span: LogSpan) => void, syncWithinMs = 0): Promise<void> {
    const h = await this.take(file);
    try {
      // Reserved before the write: appends of one handle get spans in the order they were called.
      const from = h.size;
      h.size += buf.length;
      count(this.stats, 'write', buf.length);
      await appendWhole(h.fh, buf);
      written?.({ from, to: from + buf.length, bytes: buf.length });
      await this.synced(h, syncWithinMs);
    } catch (err) {
      this.drop(file, h); // opened again by the next append, its size read again
      throw err;
    } finally {
      h.users--;
      this.release(file, h);
    }
  }

  /**
   * An fsync of `h` that begins after now: the next one not begun yet (shared), else a new one,
   * begun once the one in progress is done and `waitMs` has passed.
   */
  private synced(h: Held, waitMs: number): Promise<void> {
    if (h.next) return h.next;
    const before = h.syncing?.catch(() => undefined);
    const wait = waitMs > 0 ? new Promise((r) => setTimeout(r, waitMs)) : undefined;
    const next: Promise<void> = Promise.all([before, wait]).then(() => {
      // Begun: appends written from now on wait for the one after.
      h.next = undefined;
      h.syncing = next;
      count(this.stats, 'fsync');
      return h.fh.sync();
    });
    h.next = next;
    void next.then(
      () => this.syncEnded(h, next),
      () => this.syncEnded(h, next),
    );
    return next;
  }

  private syncEnded(h: Held, p: Promise<void>): void {
    if (h.syncing === p) h.syncing = undefined;
  }

  /** Closes the handle of `file`, if open (the key is deleted or replaced: the next append opens the new file). */
  forget(file: string): void {
    const h = this.open.get(file);
    if (h) this.drop(file, h);
    // One being opened is dropped as it opens.
    void this.opening.get(file)?.then(
      (o) => this.drop(file, o),
      () => undefined,
    );
  }

  /** Closes every handle. */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.opening.values()]);
    for (const [file, h] of [...this.open]) this.drop(file, h);
  }

  /** The open handle of `file`, counted as in use (opened if need be). */
  private async take(file: string): Promise<Held> {
    for (;;) {
      const h = this.open.get(file);
      if (h && !h.done) {
        clearTimeout(h.idle);
        h.users++;
        return h;
      }
      let p = this.opening.get(file);
      if (!p) {
        p = this.openLog(file)
          .then((opened) => {
            this.open.set(file, opened);
            return opened;
          })
          .finally(() => this.opening.delete(file));
        this.opening.set(file, p);
      }
      await p;
    }
  }
  private async openLog(file: string): Promise<Held> {
    await this.files.ensureDir(dirname(file));
    count(this.stats, 'open');
    let fh: FileHandle;
    try {
      fh = await open(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL, FILE_MODE);
    } catch (err) {
      if (!isCode(err, 'EEXIST')) throw err;
      count(this.stats, 'open');
      fh = await open(file, constants.O_WRONLY | constants.O_APPEND);
      count(this.stats, 'stat');
      return { fh, size: (await fh.stat()).size, users: 0, done: false };
    }
    // Created: its folder entry made durable before any append is acknowledged.
    try {
      await this.files.syncDir(dirname(file));
    } catch (err) {
      await fh.close().catch(() => undefined);
      throw err;
    }
    return { fh, size: 0, users: 0, done: false };
  }

  /** After an append: an idle handle is closed `idleMs` later unless appended to again. */
  private release(file: string, h: Held): void {
    if (h.users > 0) return;
    if (h.done) {
      void h.fh.close().catch(() => undefined);
      return;
    }
    clearTimeout(h.idle);
    h.idle = setTimeout(() => this.drop(file, h), this.idleMs);
    h.idle.unref();
  }

  /** Hands `h` out no more; closes it now unless an append is using it (then that append's end closes it). */
  private drop(file: string, h: Held): void {
    if (h.done) return;
    h.done = true;
    clearTimeout(h.idle);
    if (this.open.get(file) === h) this.open.delete(file);
    if (h.users === 0) void h.fh.close().catch(() => undefined);
  }
}
