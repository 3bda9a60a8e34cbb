/**
 * Group commit for logs: appends to one key that arrive while an earlier append is being written
 * go out together as the next group, so a burst of N records costs a few writes (fsyncs, PUTs),
 * not N, and each caller still resolves only once its record is durable.
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
}

/** Appends values to logs of a store, one group per key at a time. */
export class GroupAppender {
  private readonly queues = new Map<string, Waiting[]>();
  private readonly maxGroup: number;
  private readonly written: GroupAppenderOptions['written'];

  constructor(
    private readonly store: ObjectStore,
    o: GroupAppenderOptions = {},
  ) {
    this.maxGroup = o.maxGroup ?? 500;
    this.written = o.written;
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
      try {
        const members = group;
        const values = members.map((w) => w.value);
        await this.store.append(key, values, (span) => {
          this.written?.(key, values, span);
          members.forEach((w) => w.written?.(span));
        });
        for (const w of group) w.resolve();
      } catch (err) {
        for (const w of group) w.reject(err);
      }
      const queue = this.queues.get(key)!;
      if (queue.length === 0) {
        this.queues.delete(key);
        return;
      }
      group = queue.splice(0, this.maxGroup);
    }
  }
}
