/**
 * A new daemon's reap of the activities its host's dead daemons left started: once it runs, the
 * daemons Temporal saw polling its task queue whose process is gone here (worker/daemon-identity.ts)
 * are looked for among the pending activities of the task queue's running workflows (visibility:
 * a page at a time, each workflow described), and each activity one of them started is failed by
 * id with a retryable DAEMON_GONE, so its retry starts now instead of at its heartbeat timeout (a
 * batch or pipeline step's 3 s, a job's wait 30 s) or its start-to-close timeout (a poll: days). A live
 * daemon's activity is never touched: only an identity of this host whose pid no longer runs.
 */
import { type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { type Logger } from 'pino';
import { FailureType, WORKFLOW_TYPES } from '../contracts/names';
import { goneHere, pollersOf, TASK_QUEUE_TYPE_ACTIVITY, TASK_QUEUE_TYPE_WORKFLOW } from './daemon-identity';

/** Options of {@link reapDeadDaemons}. */
export interface ReapOptions {
  client: Pick<Client, 'workflowService' | 'activity'>;
  namespace: string;
  taskQueue: string;
  /** This daemon's identity (named in the failures). */
  identity: string;
  logger: Logger;
  /** Told how many activities were failed. */
  reaped?: (n: number) => void;
  /** Whether an identity names a daemon that is gone (tests). @default goneHere */
  gone?: (identity: string) => boolean;
  /** Workflows listed (and then described) at a time. @default 100 */
  pageSize?: number;
  /** Workflows described at most; the activities of the rest wait for their timeouts. @default 2000 */
  maxWorkflows?: number;
}

/** What a reap did. */
export interface Reaped {
  /** The dead daemons of this host seen polling the task queue. */
  dead: string[];
  /** Workflows described, activities failed. */
  workflows: number;
  activities: number;
}

// temporal.api.enums.v1.PendingActivityState.
const STARTED = 2;
/** Workflows described at once. */
const PARALLEL = 4;

/**
 * The task queue's running workflows, the job workflows last: with more than `maxWorkflows`
 * running (a batch of per-job workflows), its batch is still among those described.
 */
const queries = (taskQueue: string): string[] => {
  const running = `TaskQueue = '${taskQueue.replace(/'/g, "\\'")}' AND ExecutionStatus = 'Running'`;
  return [
    `${running} AND WorkflowType != '${WORKFLOW_TYPES.job}'`,
    `${running} AND WorkflowType = '${WORKFLOW_TYPES.job}'`,
  ];
};

/**
 * Fails the started activities of this host's dead daemons (see the file's comment); logs once
 * what it did. Never throws: a server without advanced visibility (or one that refuses the list)
 * leaves them to their timeouts, said at debug.
 */
export async function reapDeadDaemons(o: ReapOptions): Promise<Reaped> {
  const gone = o.gone ?? goneHere;
  const out: Reaped = { dead: [], workflows: 0, activities: 0 };
  try {
    out.dead = await deadDaemons(o, gone);
  } catch (err) {
    o.logger.debug({ err: (err as Error).message }, "reap: the task queue's pollers are unknown; nothing reaped");
    return out;
  }
  if (out.dead.length === 0) {
    o.logger.debug('reap: no dead daemon of this host polled the task queue');
    return out;
  }
  const dead = new Set(out.dead);
  const limit = o.maxWorkflows ?? 2000;
  try {
    for (const query of queries(o.taskQueue)) {
      let token: Uint8Array | undefined;
      do {
        const page = await o.client.workflowService.listWorkflowExecutions({
          namespace: o.namespace,
          query,
          pageSize: Math.min(o.pageSize ?? 100, limit - out.workflows),
          ...(token ? { nextPageToken: token } : {}),
        });
        const runs = (page.executions ?? []).flatMap((e) =>
          e.execution?.workflowId ? [{ workflowId: e.execution.workflowId, runId: e.execution.runId ?? '' }] : [],
        );
        out.workflows += runs.length;
        const n = await inParallel(runs, (run) => reapRun(o, run, dead, gone));
        out.activities += n.reduce((a, b) => a + b, 0);
        token = page.nextPageToken?.length ? page.nextPageToken : undefined;
      } while (token && out.workflows < limit);
      if (out.workflows >= limit) break;
    }
  } catch (err) {
    o.logger.debug(
      { err: (err as Error).message, dead: out.dead },
      "reap: the task queue's workflows cannot be listed (no advanced visibility?); dead daemons' activities wait for their timeouts",
    );
  }
  if (out.activities > 0) o.reaped?.(out.activities);
  o.logger.info(
    { ...out, ...(out.workflows >= limit ? { limit } : {}) },
    `reap: ${out.activities} activities of dead daemons of this host failed for a retry at once`,
  );
  return out;
}

/** The identities of daemons of this host that polled the task queue (activities or workflows) and whose process is gone. */
async function deadDaemons(o: ReapOptions, gone: (identity: string) => boolean): Promise<string[]> {
  const [acts, wfs] = await Promise.all([
    pollersOf(o.client, o.namespace, o.taskQueue, TASK_QUEUE_TYPE_ACTIVITY),
    pollersOf(o.client, o.namespace, o.taskQueue, TASK_QUEUE_TYPE_WORKFLOW),
  ]);
  const ids = new Set([...acts, ...wfs].map((p) => p.identity).filter((id) => id !== o.identity));
  return [...ids].filter((id) => gone(id));
}

/**
 * Fails the started activities of `run` whose last worker is a dead daemon, each right after the
 * describe that showed it started there (its next attempt, were its timeout to fire meanwhile,
 * starts no sooner than its retry's backoff: 200 ms for a step, 1 s otherwise); returns how many.
 */
async function reapRun(
  o: ReapOptions,
  run: { workflowId: string; runId: string },
  dead: Set<string>,
  gone: (identity: string) => boolean,
): Promise<number> {
  const d = await o.client.workflowService.describeWorkflowExecution({ namespace: o.namespace, execution: run });
  let n = 0;
  for (const a of d.pendingActivities ?? []) {
    const who = a.lastWorkerIdentity ?? '';
    if (a.state !== STARTED || !a.activityId || !dead.has(who) || !gone(who)) continue;
    const failure = ApplicationFailure.create({
      type: FailureType.DAEMON_GONE,
      nonRetryable: false,
      message: `daemon ${who} is gone (its process no longer runs); failed for a retry by ${o.identity} at its start`,
    });
    try {
      await o.client.activity.fail({ ...run, activityId: a.activityId }, failure);
      n++;
    } catch (err) {
      // Completed, timed out or retried meanwhile: nothing left to reap.
      o.logger.debug(
        { ...run, activityId: a.activityId, err: (err as Error).message },
        'reap: activity gone meanwhile',
      );
    }
  }
  // Its next workflow task goes to any daemon, not to the dead one's sticky queue (a wait of its timeout).
  if (n > 0)
    await o.client.workflowService
      .resetStickyTaskQueue({ namespace: o.namespace, execution: run })
      .catch(() => undefined);
  return n;
}

/** `fn` of every item, {@link PARALLEL} at a time; a failed one counts 0. */
async function inParallel<T>(items: T[], fn: (item: T) => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!).catch(() => 0);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, lane));
  return out;
}
