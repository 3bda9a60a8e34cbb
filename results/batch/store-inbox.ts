/**
 * The batch webhook inbox in the results store, shared by every daemon: the daemon that receives a
 * webhook appends the record to its own log of the run (durably, before answering the call), and
 * whichever daemon runs the batch's next step reads every log from where the last finished step
 * stopped. A record is taken by exactly one finished step, whatever daemon received it or died.
 * A step takes its own daemon's records from memory (./inbox-recent) as far as it holds them.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type JobRecord, type RunScope } from '../../contracts';
import { batchKeys, runKey } from '../../contracts/names';
import { allKeys, type ObjectStore } from '../store/object-store';
import { GroupAppender } from '../store/group-appender';
import { RecentRecords } from './inbox-recent';
import {
  type BatchInbox,
  type InboxClaim,
  type InboxPosition,
  type InboxReader,
  type InboxReceiver,
  type InboxRecord,
} from './inbox';

/** Options of {@link StoreInbox}; durations in ms. */
export interface StoreInboxOptions {
  store: ObjectStore;
  /** This daemon's name in its logs' keys; unique per daemon process. @default `<host>-<pid>-<random>` */
  daemonId?: string;
  /**
   * How often a waiting step looks for records that other daemons received (its own arrive at once).
   * @default 250
   */
  pollMs?: number;
  /**
   * After the first record arrives, wait this much longer for more, so a step takes them together.
   * @default 200
   */
  lingerMs?: number;
  /**
   * How long a record's fsync (a local store) waits for later webhooks to share it: each webhook is
   * still answered only once an fsync after its write is done, and a step sees the record once it is
   * written. At ~100 webhooks/s a run's log took an fsync per record (issue 22). @default 25
   */
  syncWithinMs?: number;
}

/** The shared inbox: the webhook receiver puts, batch steps open a reader. */
export class StoreInbox implements BatchInbox, InboxReceiver {
  readonly daemonId: string;
  private readonly store: ObjectStore;
  private readonly pollMs: number;
  private readonly lingerMs: number;
  private readonly appender: GroupAppender;
  /** The records of this daemon's logs, as appended (only this daemon appends to them). */
  private readonly recent = new RecentRecords();
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(o: StoreInboxOptions) {
    this.store = o.store;
    this.daemonId = o.daemonId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.pollMs = o.pollMs ?? 250;
    this.lingerMs = o.lingerMs ?? 200;
    this.appender = new GroupAppender(o.store, {
      written: (key, values, span) => this.recent.add(key, values as InboxRecord[], span),
      syncWithinMs: o.syncWithinMs ?? 25,
    });
  }

  /**
   * A finished job of a batch run (a webhook call): resolves once it is durable in the store. The
   * run's waiting steps are woken once it is written (a local store's fsync is then still to come):
   * a reader sees it from then on, as a reader woken by another record or its poll always could,
   * and a refill frees its job's slot without waiting for the disk (issue 22).
   */
  async put(run: RunScope, record: JobRecord, claim?: InboxClaim): Promise<void> {
    let woken = false;
    const wake = (): void => {
      if (woken) return;
      woken = true;
      for (const w of this.waiters.get(runKey(run)) ?? []) w();
    };
    await this.appender.append(batchKeys.inboxLog(run, this.daemonId), claim ? { ...record, claim } : record, wake);
    wake();
  }

  /**
   * The reader of step `seq` of `run`: from the positions kept with the last step result before
   * `seq` (steps of a run are sequential, and a retried step reads again what it read before).
   */
  async open(run: RunScope, seq: number): Promise<InboxReader> {
    for (let k = seq - 1; k >= Math.max(0, seq - LOOK_BACK); k--) {
      const kept = (await this.store.find(batchKeys.stepResult(run, k))) as { inboxAt?: InboxPosition } | undefined;
      if (kept) return this.reader(run, { ...(kept.inboxAt ?? {}) });
    }
    return this.reader(run, {});
  }

  private reader(run: RunScope, at: InboxPosition): Reader {
    const own = batchKeys.inboxLog(run, this.daemonId);
    this.recent.trim(own, at[own] ?? 0);
    return new Reader(this, run, at);
  }

  /** @internal What this daemon appended to its log `key` from position `at` on, if still held in memory. */
  since(key: string, at: number): { records: InboxRecord[]; at: number } | undefined {
    return this.recent.since(key, at);
  }

  /** @internal */
  get options(): { store: ObjectStore; pollMs: number; lingerMs: number } {
    return { store: this.store, pollMs: this.pollMs, lingerMs: this.lingerMs };
  }

  /** @internal Calls `fn` whenever this daemon receives a record of `run`, until the returned function is called. */
  listen(run: RunScope, fn: () => void): () => void {
    const k = runKey(run);
    let set = this.waiters.get(k);
    if (!set) this.waiters.set(k, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0) this.waiters.delete(k);
    };
  }
}

/** How many sequence numbers back a step looks for the last kept step result (other activities, as the batch's finish, take numbers too). */
const LOOK_BACK = 8;

class Reader implements InboxReader {
  private readonly buffered = new Map<string, InboxRecord>();
  private logs: string[] = [];
  private listedAt = 0;
  private dirty = true;

  constructor(
    private readonly inbox: StoreInbox,
    private readonly run: RunScope,
    private readonly at: InboxPosition,
  ) {}

  async take(): Promise<InboxRecord[]> {
    // What a wait just read is not read again: the logs are listed at most every pollMs.
    await this.refresh();
    const out = [...this.buffered.values()];
    this.buffered.clear();
    return out;
  }

  async wait(min: number, ms: number, signal?: AbortSignal, lingerMs = this.inbox.options.lingerMs): Promise<void> {
    const until = Date.now() + ms;
    let lingerUntil: number | undefined;
    const stop = this.inbox.listen(this.run, () => {
      this.dirty = true;
      wake?.();
    });
    let wake: (() => void) | undefined;
    try {
      for (;;) {
        await this.refresh();
        if (this.buffered.size >= min) return;
        if (this.buffered.size > 0) lingerUntil ??= Date.now() + lingerMs;
        const end = Math.min(until, lingerUntil ?? Infinity);
        if (Date.now() >= end || signal?.aborted || ms <= 0) return;
        if (this.dirty) continue;
        await new Promise<void>((resolve) => {
          const done = (): void => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            wake = undefined;
            resolve();
          };
          const timer = setTimeout(done, Math.min(end - Date.now(), this.inbox.options.pollMs));
          wake = done;
          signal?.addEventListener('abort', done, { once: true });
        });
      }
    } finally {
      stop();
    }
  }

  position(): InboxPosition {
    return { ...this.at };
  }

  /**
   * Reads what is new in every log, listing the logs at most every `pollMs`. Its own log: from
   * memory whenever the inbox holds it from where this reader is (at every look: records put
   * between two waits are seen at once), else from the store when listing or woken by a put.
   */
  private async refresh(): Promise<void> {
    const { store, pollMs } = this.inbox.options;
    const own = batchKeys.inboxLog(this.run, this.inbox.daemonId);
    const held = this.inbox.since(own, this.at[own] ?? 0);
    if (held) {
      this.at[own] = held.at;
      this.keep(held.records);
    }
    const now = Date.now();
    let keys: string[];
    if (now - this.listedAt >= pollMs) {
      this.logs = await allKeys(store, batchKeys.inboxPrefix(this.run));
      this.listedAt = now;
      keys = held ? this.logs.filter((k) => k !== own) : this.logs;
    } else keys = this.dirty && !held ? [own] : [];
    this.dirty = false;
    await Promise.all(
      keys.map(async (key) => {
        const { lines, at } = await store.tail(key, this.at[key] ?? 0);
        this.at[key] = at;
        this.keep(lines as InboxRecord[]);
      }),
    );
  }

  private keep(records: InboxRecord[]): void {
    for (const r of records) this.buffered.set(`${r.id}#${r.retries ?? 0}`, r);
  }
}
