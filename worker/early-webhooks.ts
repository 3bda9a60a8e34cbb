/**
 * The webhooks that came before their wait was known to this daemon, kept (bounded in entries and
 * bytes, oldest dropped first) until the wait registers here or takes them by activity id.
 */
import { type Logger } from 'pino';
import { MB, type RemoteOutcome } from '../contracts';

/** Options of {@link EarlyWebhooks}. */
export interface EarlyWebhooksOptions {
  /**
   * Most webhooks kept; past it the oldest is dropped.
   * @default 10000
   */
  maxEntries?: number;
  /**
   * Most bytes kept (the outcomes' JSON: outputs over the inline limit are in the results store,
   * so an outcome is small); past it the oldest are dropped.
   * @default 33554432 (32 MB)
   */
  maxBytes?: number;
  /**
   * How long a webhook is kept, ms (its wait then finds the outcome by its `/status` poll).
   * @default 3600000
   */
  keepMs?: number;
  /** Told of each webhook dropped to stay within the bounds (not of those kept their full time). */
  onDrop?: (entry: EarlyWebhook, bound: 'entries' | 'bytes') => void;
}

/** A webhook kept for a wait not registered yet: offered again by activity id (the wait may start on another daemon). */
export interface EarlyWebhook {
  outcome: RemoteOutcome;
  at: number;
  workflowId: string;
  activityId: string;
  nextTryAt: number;
  busy: boolean;
}

/** The early-webhook table: insertion order is age order, so the oldest is dropped first. */
export class EarlyWebhooks {
  private readonly entries = new Map<string, { e: EarlyWebhook; bytes: number }>();
  private total = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly keepMs: number;

  constructor(private readonly o: EarlyWebhooksOptions = {}) {
    this.maxEntries = o.maxEntries ?? 10_000;
    this.maxBytes = o.maxBytes ?? 32 * MB;
    this.keepMs = o.keepMs ?? 3_600_000;
  }

  get(k: string): EarlyWebhook | undefined {
    return this.entries.get(k)?.e;
  }

  /** Keeps `e` under `k` (as the newest), dropping the oldest while a bound is passed. */
  set(k: string, e: EarlyWebhook): void {
    this.delete(k);
    const bytes = Buffer.byteLength(k) + Buffer.byteLength(JSON.stringify(e.outcome)) + 128;
    this.entries.set(k, { e, bytes });
    this.total += bytes;
    while (this.entries.size > this.maxEntries) this.dropOldest('entries');
    while (this.total > this.maxBytes && this.entries.size > 0) this.dropOldest('bytes');
  }

  delete(k: string): void {
    const had = this.entries.get(k);
    if (!had) return;
    this.entries.delete(k);
    this.total -= had.bytes;
  }

  /** Drops the webhooks kept their full time; returns the others (oldest first). */
  expire(now: number): [string, EarlyWebhook][] {
    const out: [string, EarlyWebhook][] = [];
    for (const [k, { e }] of this.entries) {
      if (now - e.at > this.keepMs) this.delete(k);
      else out.push([k, e]);
    }
    return out;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Bytes kept, as counted against `maxBytes`. */
  get bytes(): number {
    return this.total;
  }

  private dropOldest(bound: 'entries' | 'bytes'): void {
    const [k, { e }] = this.entries.entries().next().value as [string, { e: EarlyWebhook; bytes: number }];
    this.delete(k);
    this.o.onDrop?.(e, bound);
  }
}

/** An `onDrop` that counts every drop and says so in a warn line at most once a minute (a flood must not flood the log). */
export function loggedDrops(
  logger: Logger,
  metrics: { earlyWebhookDropped?(bound: 'entries' | 'bytes'): void },
): NonNullable<EarlyWebhooksOptions['onDrop']> {
  let dropped = 0;
  let loggedAt = 0;
  return (e, bound) => {
    metrics.earlyWebhookDropped?.(bound);
    dropped++;
    if (Date.now() - loggedAt < 60_000) return;
    loggedAt = Date.now();
    logger.warn(
      { workflowId: e.workflowId, activityId: e.activityId, bound, dropped },
      `early-webhook table full (${bound}): the oldest are dropped; their waits find the outcome by /status polls`,
    );
    dropped = 0;
  };
}
