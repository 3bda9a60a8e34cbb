/**
 * Where webhooks of batch jobs wait until the batch's next step takes them: in the memory of the
 * daemon that received them. A record lost with its daemon is found by the step's `/status` poll.
 */
import { type JobRecord, type RunScope } from '../../contracts';
import { runKey } from '../../contracts/names';

/** What batch steps need of the inbox. */
export interface BatchInbox {
  /** Takes every finished record of the run (each once). */
  take(run: RunScope): Promise<JobRecord[]>;
  /** Resolves once `min` records of the run wait, after `lingerMs` more for stragglers, or after `ms`. */
  wait(run: RunScope, min: number, ms: number, signal?: AbortSignal): Promise<void>;
}

/** Options of {@link MemoryInbox}. */
export interface MemoryInboxOptions {
  /**
   * Records of a run no step took for this long are dropped (the batch is gone).
   * @default 3600000
   */
  keepMs?: number;
  /**
   * After the first record arrives, wait this much longer for more, so a step takes them together.
   * @default 200
   */
  lingerMs?: number;
}

interface Box {
  records: Map<string, JobRecord>;
  touched: number;
  waiters: Set<() => void>;
}

/** The daemon's inbox: the webhook receiver puts, batch steps take. */
export class MemoryInbox implements BatchInbox {
  private readonly boxes = new Map<string, Box>();
  private readonly keepMs: number;
  private readonly lingerMs: number;

  constructor(o: MemoryInboxOptions = {}) {
    this.keepMs = o.keepMs ?? 3_600_000;
    this.lingerMs = o.lingerMs ?? 200;
  }

  /** A finished job of a batch run (a webhook call). A later record of the same job replaces it. */
  put(run: RunScope, record: JobRecord): void {
    const box = this.box(runKey(run));
    box.records.set(`${record.id}#${record.retries ?? 0}`, record);
    box.touched = Date.now();
    for (const w of box.waiters) w();
    this.sweep();
  }

  async take(run: RunScope): Promise<JobRecord[]> {
    const key = runKey(run);
    const box = this.boxes.get(key);
    if (!box) return [];
    const out = [...box.records.values()];
    box.records.clear();
    box.touched = Date.now();
    return out;
  }

  async wait(run: RunScope, min: number, ms: number, signal?: AbortSignal): Promise<void> {
    const box = this.box(runKey(run));
    if (box.records.size >= min || ms <= 0) return;
    await new Promise<void>((resolve) => {
      let linger: NodeJS.Timeout | undefined;
      const done = (): void => {
        clearTimeout(timer);
        clearTimeout(linger);
        box.waiters.delete(check);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const check = (): void => {
        if (box.records.size >= min) done();
        else linger ??= setTimeout(done, this.lingerMs);
      };
      const timer = setTimeout(done, ms);
      box.waiters.add(check);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Records waiting, over every run (metrics, tests). */
  size(): number {
    let n = 0;
    for (const b of this.boxes.values()) n += b.records.size;
    return n;
  }

  private box(key: string): Box {
    let box = this.boxes.get(key);
    if (!box) {
      box = { records: new Map(), touched: Date.now(), waiters: new Set() };
      this.boxes.set(key, box);
    }
    return box;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [k, b] of this.boxes) if (b.waiters.size === 0 && now - b.touched > this.keepMs) this.boxes.delete(k);
  }
}
