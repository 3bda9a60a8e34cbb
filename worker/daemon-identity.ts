/**
 * A daemon's worker identity, `pid@host:port` (unique per daemon, two in one process too), and what
 * it tells: whether it names a process of this host that no longer runs (a daemon killed here), and
 * which daemons Temporal saw polling a task queue. The rate share and the reap of dead daemons'
 * activities (worker/rate-share.ts, worker/reap.ts) read identities through this file only.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { type Client } from '@temporalio/client';

/** The identity of the daemon of this process whose HTTP server listens on `port`. */
export const daemonIdentity = (port: number): string => `${process.pid}@${hostname()}:${port}`;

/**
 * Whether a daemon's identity names a process of this host that no longer runs. Another host's
 * daemon, this process, or an identity of another form, is never known gone. "This host" is the
 * hostname: daemons in separate containers must not share one (docs/deployment.md).
 */
export function goneHere(identity: string, host = hostname()): boolean {
  const m = /^(\d+)@(.*):\d+$/.exec(identity);
  if (!m || m[2] !== host) return false;
  const pid = Number(m[1]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return zombie(pid);
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** A poller Temporal reports for a task queue: its identity and when it last polled (ms since the epoch; 0: unknown). */
export interface Poller {
  identity: string;
  at: number;
}

// temporal.api.enums.v1 values (@temporalio/proto is not a direct dependency).
const TASK_QUEUE_KIND_NORMAL = 1;
export const TASK_QUEUE_TYPE_WORKFLOW = 1;
export const TASK_QUEUE_TYPE_ACTIVITY = 2;

/** The pollers Temporal saw on `taskQueue` of `type` (activity by default) lately (the server keeps a few minutes). */
export async function pollersOf(
  client: Pick<Client, 'workflowService'>,
  namespace: string,
  taskQueue: string,
  type = TASK_QUEUE_TYPE_ACTIVITY,
): Promise<Poller[]> {
  const res = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: TASK_QUEUE_KIND_NORMAL },
    taskQueueType: type,
  });
  return (res.pollers ?? []).flatMap((p) => {
    if (!p.identity) return [];
    const t = p.lastAccessTime;
    const at = t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;
    return [{ identity: p.identity, at }];
  });
}

/**
 * A killed process not yet reaped (its parent died too, and an init that reaps nothing, as in a
 * container without one, adopted it) still answers `kill(pid, 0)`: Linux says so in /proc.
 */
function zombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}
