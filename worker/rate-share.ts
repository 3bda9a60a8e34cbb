/**
 * This daemon's share of the service's rate limits when several daemons use one task queue (and so
 * one API key and endpoints): the rate budget is divided by the number of live daemons, counted as
 * the distinct activity pollers Temporal reports for the task queue (`describeTaskQueue`). A poller
 * of this host whose process is gone (a daemon killed and restarted here: its identity names its
 * pid, worker/daemon-identity.ts) is not counted: the restarted daemon runs at the full limit at
 * once instead of half of it for the dead one's `liveMs`.
 */
import { type Client } from '@temporalio/client';
import { type Logger } from 'pino';
import { type RateBudget } from '../platform-api';
import { goneHere, pollersOf } from './daemon-identity';

/** Options of {@link startRateShare}. */
export interface RateShareOptions {
  client: Client;
  namespace: string;
  taskQueue: string;
  /** This daemon's worker identity (always counted, even before its first poll). */
  identity: string;
  budget: RateBudget;
  logger?: Logger;
  /**
   * How often the pollers are counted again, ms.
   * @default 15000
   */
  refreshMs?: number;
  /**
   * A poller last seen longer ago than this is gone. An idle worker polls again about every 60 s
   * (the server's long-poll timeout), so less than ~70 s would drop idle daemons.
   * @default 75000
   */
  liveMs?: number;
}

/** The running share: the daemons last counted, and a stop. */
export interface RateShare {
  /** Live daemons on the task queue at the last count (this one included). */
  readonly daemons: number;
  /** Counts again now (also done on a timer). */
  refresh(): Promise<number>;
  stop(): void;
}

/** Live daemons polling `taskQueue` for activities, by distinct identity; `identity` always included. */
export async function liveDaemons(
  client: Client,
  namespace: string,
  taskQueue: string,
  identity: string,
  liveMs: number,
): Promise<number> {
  const since = Date.now() - liveMs;
  const live = new Set([identity]);
  for (const p of await pollersOf(client, namespace, taskQueue)) {
    if (p.at >= since && !goneHere(p.identity)) live.add(p.identity);
  }
  return live.size;
}

/**
 * Sets `budget`'s scale to 1 / (live daemons) now and every `refreshMs`. A failed count keeps the
 * last share (logged). A new daemon is seen by the others within `refreshMs`; a dead one keeps
 * counting for up to `liveMs` (the others then run below the limit, never above it).
 */
export function startRateShare(o: RateShareOptions): RateShare {
  const liveMs = o.liveMs ?? 75_000;
  let daemons = 1;
  let stopped = false;
  const refresh = async (): Promise<number> => {
    try {
      const n = await liveDaemons(o.client, o.namespace, o.taskQueue, o.identity, liveMs);
      if (n !== daemons) o.logger?.info({ daemons: n, share: +(1 / n).toFixed(3) }, 'rate budget shared among daemons');
      daemons = n;
      if (!stopped) o.budget.setScale(1 / n);
    } catch (err) {
      // After stop() the daemon is closing, and the server may be gone first: no news then.
      if (!stopped) o.logger?.warn({ err }, 'could not count the daemons of the task queue; the rate share stays');
    }
    return daemons;
  };
  const timer = setInterval(() => void refresh(), o.refreshMs ?? 15_000);
  timer.unref();
  void refresh();
  return {
    get daemons() {
      return daemons;
    },
    refresh,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
