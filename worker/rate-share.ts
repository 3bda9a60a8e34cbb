/**
 * This daemon's share of the service's rate limits when several daemons use one task queue (and so
 * one API key and endpoints): the rate budget is divided by the number of live daemons, counted as
 * the distinct activity pollers Temporal reports for the task queue (`describeTaskQueue`). A poller
 * of this host whose process is gone (a daemon killed and restarted here: its identity names its
 * pid) is not counted: the restarted daemon runs at the full limit at once instead of half of it
 * for the dead one's `liveMs`.
 */
import { hostname } from 'node:os';
import { type Client } from '@temporalio/client';
import { type Logger } from 'pino';
import { type RateBudget } from '../platform-api';

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

// temporal.api.enums.v1 values (@temporalio/proto is not a direct dependency).
const TASK_QUEUE_KIND_NORMAL = 1;
const TASK_QUEUE_TYPE_ACTIVITY = 2;

/** Live daemons polling `taskQueue` for activities, by distinct identity; `identity` always included. */
export async function liveDaemons(
  client: Client,
  namespace: string,
  taskQueue: string,
  identity: string,
  liveMs: number,
): Promise<number> {
  const res = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: TASK_QUEUE_KIND_NORMAL },
    taskQueueType: TASK_QUEUE_TYPE_ACTIVITY,
  });
  const since = Date.now() - liveMs;
  const live = new Set([identity]);
  for (const p of res.pollers ?? []) {
    const at = p.lastAccessTime
      ? Number(p.lastAccessTime.seconds ?? 0) * 1000 + Math.floor((p.lastAccessTime.nanos ?? 0) / 1e6)
      : 0;
    if (p.identity && at >= since && !goneHere(p.identity)) live.add(p.identity);
  }
  return live.size;
}

/**
 * Whether a daemon's identity (`pid@host:port`, worker/daemon.ts) names a process of this host that
 * no longer runs. Another host's daemon, or an identity of another form, is never known gone.
 */
export function goneHere(identity: string, host = hostname()): boolean {
  const m = /^(\d+)@(.*):\d+$/.exec(identity);
  if (!m || m[2] !== host) return false;
  const pid = Number(m[1]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
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
