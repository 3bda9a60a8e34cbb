/**
 * Group commit for logs: appends to one key that arrive while an earlier append is being written
 * go out together as the next group, so a burst of N records costs a few writes (fsyncs, PUTs),
 * not N, and each caller still resolves only once its record is durable. The next group is written
 * as soon as the one before is written (not durable): with `syncWithinMs`, groups written close
 * together share one fsync on a local store (its group commit), and none waits for the disk to be
 * written or seen (`written`).
 */
import { type LogSpan, type ObjectStore } from './object-store';

interface Waiting {
  value: unknown;
  resolve: () => void;
  reject: (err: unknown) => void;
  written?: (span: LogSpan) => void;
}

/** Options of {@link GroupAppender}. */
export interface GroupAppenderOptions {
  /** Most records in one group. @default 500 */
  maxGroup?: number;
  /** Called once per group when the store wrote it (before its member's own `written`), with its values and where it lies. */
  written?: (key: string, values: unknown[], span: LogSpan) => void;
  /** Most ms a group's fsync waits for later groups to share it (ObjectStore.append). @default 0 */
  syncWithinMs?: number;
}

/** Appends values to logs of a store, one group per key at a time. */
export class GroupAppender {
  private readonly queues = new Map<string, Waiting[]>();
  private readonly maxGroup: number;
  private readonly written: GroupAppenderOptions['written'];
  private readonly syncWithinMs: number;

  constructor(
    private readonly store: ObjectStore,
    o: GroupAppenderOptions = {},
  ) {
    this.maxGroup = o.maxGroup ?? 500;
    this.written = o.written;
    this.syncWithinMs = o.syncWithinMs ?? 0;
  }

  /**
   * Appends `value` to the log `key`; resolves once it is durable (with the records grouped with it).
   * `written`: called when its group is written, maybe before it is durable (ObjectStore.append).
   */
  append(key: string, value: unknown, written?: (span: LogSpan) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue) {
        queue.push({ value, resolve, reject, written });
        return;
      }
      this.queues.set(key, []);
      void this.flush(key, [{ value, resolve, reject, written }]);
    });
  }

  private async flush(key: string, group: Waiting[]): Promise<void> {
    for (;;) {
      const members = group;
      const values = members.map((w) => w.value);
      let wrote!: () => void;
      const isWritten = new Promise<void>((r) => (wrote = r));
      const o = this.syncWithinMs > 0 ? { syncWithinMs: this.syncWithinMs } : undefined;
      const appended = this.store.append(
        key,
        values,
        (span) => {
          this.written?.(key, values, span);
          members.forEach((w) => w.written?.(span));
          wrote();
        },
        o,
      );
      const settled = appended.then(
        () => members.forEach((w) => w.resolve()),
        (err: unknown) => members.forEach((w) => w.reject(err)),
      );
      // Written (its place in the log taken), or failed: the next group may go.
      await Promise.race([isWritten, settled]);
      const queue = this.queues.get(key)!;
      if (queue.length === 0) {
        this.queues.delete(key);
        return;
      }
      group = queue.splice(0, this.maxGroup);
    }
  }
}
