/**
 * The records a daemon appended to its own inbox logs lately, in memory with where each group lies
 * in its log: a step of the same daemon takes them from here instead of stat-ing and reading the
 * file at every wake (issue 22). The log stays the durable source (what a restarted or another
 * daemon reads); whatever is not held here (before the oldest group kept, after a gap) is read from it.
 */
import { type LogSpan } from '../store/object-store';
import { type InboxRecord } from './inbox';

interface Group {
  from: number;
  records: InboxRecord[];
  bytes: number;
}

interface Log {
  groups: Group[];
  /** The position after the last group. */
  end: number;
}

/** Recent groups of the logs this daemon appends to, bounded in bytes (the least recently appended logs' oldest groups go first). */
export class RecentRecords {
  /** In order of their last append. */
  private readonly logs = new Map<string, Log>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  /** Records appended to `key` as one group at `span`: held after the group before, else in place of them (a gap). */
  add(key: string, records: InboxRecord[], span: LogSpan): void {
    let log = this.logs.get(key);
    if (log && log.end !== span.from) this.forget(key);
    log = this.logs.get(key) ?? { groups: [], end: span.from };
    this.logs.delete(key); // re-inserted last: the most recently appended
    this.logs.set(key, log);
    log.groups.push({ from: span.from, records, bytes: span.bytes });
    log.end = span.to;
    this.bytes += span.bytes;
    this.shed();
  }

  /**
   * The records of `key` from position `at` on and the position after them; undefined when not
   * held from `at` (the log is read instead).
   */
  since(key: string, at: number): { records: InboxRecord[]; at: number } | undefined {
    const log = this.logs.get(key);
    if (!log) return undefined;
    if (at === log.end) return { records: [], at };
    // Groups are in log order: the one starting at `at`, by halving.
    let lo = 0;
    let hi = log.groups.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (log.groups[mid]!.from < at) lo = mid + 1;
      else hi = mid;
    }
    const first = lo;
    if (log.groups[first]?.from !== at) return undefined;
    return { records: log.groups.slice(first).flatMap((g) => g.records), at: log.end };
  }

  /** Drops the groups of `key` before `at`: a step opened there, and no later step reads before it. */
  trim(key: string, at: number): void {
    const log = this.logs.get(key);
    if (!log) return;
    while (log.groups.length > 0 && log.groups[0]!.from < at) this.bytes -= log.groups.shift()!.bytes;
  }

  private forget(key: string): void {
    for (const g of this.logs.get(key)?.groups ?? []) this.bytes -= g.bytes;
    this.logs.delete(key);
  }

  private shed(): void {
    for (const [key, log] of this.logs) {
      if (this.bytes <= this.maxBytes) return;
      while (log.groups.length > 0 && this.bytes > this.maxBytes) this.bytes -= log.groups.shift()!.bytes;
      if (log.groups.length === 0) this.logs.delete(key);
    }
  }
}
