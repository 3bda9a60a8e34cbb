/**
 * The reap of dead daemons' activities at a daemon's start, against a fake Temporal client: only the
 * started activities of a daemon of this host whose process is gone are failed (retryable
 * DAEMON_GONE), a page of workflows at a time; without a dead daemon nothing is listed; a server
 * that cannot list (no advanced visibility) makes it do nothing.
 */
import { hostname } from 'node:os';
import { type Client } from '@temporalio/client';
import { type ApplicationFailure } from '@temporalio/common';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { reapDeadDaemons } from '../../worker/reap';

const NO_SUCH_PID = 2 ** 22 + 1;
const here = hostname();
const me = `${process.pid}@${here}:9000`;
const dead = `${NO_SUCH_PID}@${here}:9001`;
const live = `${process.ppid}@${here}:9002`;
const elsewhere = `${NO_SUCH_PID}@other-host:9003`;
const STARTED = 2;
const SCHEDULED = 1;

interface Pending {
  activityId: string;
  state: number;
  lastWorkerIdentity: string;
}

/** A fake client: pollers, running workflows (each with its pending activities), listed `pageSize` at a time. */
function fakeClient(o: { pollers: string[]; runs: Record<string, Pending[]>; noVisibility?: boolean }) {
  const failed: { workflowId: string; activityId: string; err: ApplicationFailure }[] = [];
  const calls = { list: 0, describe: 0, unstick: [] as string[] };
  const ids = Object.keys(o.runs);
  const client = {
    workflowService: {
      describeTaskQueue: () =>
        Promise.resolve({ pollers: o.pollers.map((identity) => ({ identity, lastAccessTime: { seconds: 1 } })) }),
      listWorkflowExecutions: (req: { query: string; pageSize: number; nextPageToken?: Uint8Array }) => {
        calls.list++;
        if (o.noVisibility) return Promise.reject(new Error('INVALID_ARGUMENT: operation is not supported'));
        // Every run is a job workflow here but for `b*`: the batches are listed first.
        const kind = req.query.includes("!= 'jobWorkflow'")
          ? (id: string) => id.startsWith('b')
          : (id: string) => !id.startsWith('b');
        const of = ids.filter(kind);
        const from = req.nextPageToken ? Number(Buffer.from(req.nextPageToken).toString()) : 0;
        const page = of.slice(from, from + req.pageSize);
        const next = from + req.pageSize < of.length ? Buffer.from(String(from + req.pageSize)) : undefined;
        return Promise.resolve({
          executions: page.map((workflowId) => ({ execution: { workflowId, runId: `run-${workflowId}` } })),
          ...(next ? { nextPageToken: next } : {}),
        });
      },
      describeWorkflowExecution: (req: { execution: { workflowId: string } }) => {
        calls.describe++;
        return Promise.resolve({ pendingActivities: o.runs[req.execution.workflowId] });
      },
      resetStickyTaskQueue: (req: { execution: { workflowId: string } }) => {
        calls.unstick.push(req.execution.workflowId);
        return Promise.resolve({});
      },
    },
    activity: {
      fail: (id: { workflowId: string; activityId: string }, err: ApplicationFailure) => {
        failed.push({ workflowId: id.workflowId, activityId: id.activityId, err });
        return Promise.resolve();
      },
    },
  };
  return { client: client as unknown as Client, failed, calls };
}

const logger = pino({ level: 'silent' });

describe('the reap of dead daemons at start', () => {
  it("fails only the started activities of this host's dead daemons, a page at a time, and unsticks their workflows", async () => {
    const runs: Record<string, Pending[]> = {
      batch1: [{ activityId: 'step', state: STARTED, lastWorkerIdentity: dead }],
      batch2: [{ activityId: 'step', state: STARTED, lastWorkerIdentity: live }],
    };
    for (let i = 0; i < 7; i++)
      runs[`job${i}`] = [
        { activityId: 'await', state: i % 2 === 0 ? STARTED : SCHEDULED, lastWorkerIdentity: dead },
        { activityId: 'other', state: STARTED, lastWorkerIdentity: i === 3 ? elsewhere : live },
      ];
    const f = fakeClient({ pollers: [me, dead, live, elsewhere], runs });
    let counted = 0;
    const r = await reapDeadDaemons({
      client: f.client,
      namespace: 'default',
      taskQueue: 'q',
      identity: me,
      logger,
      reaped: (n) => (counted += n),
      pageSize: 3,
    });
    expect(r.dead).toEqual([dead]);
    expect(r.workflows).toBe(9);
    const failed = f.failed.map((x) => `${x.workflowId}/${x.activityId}`).sort();
    expect(failed).toEqual(['batch1/step', 'job0/await', 'job2/await', 'job4/await', 'job6/await']);
    expect(r.activities).toBe(5);
    expect(counted).toBe(5);
    expect(f.failed.every((x) => x.err.type === 'DAEMON_GONE' && !x.err.nonRetryable)).toBe(true);
    expect(f.calls.unstick.sort()).toEqual(['batch1', 'job0', 'job2', 'job4', 'job6']);
    // One list of the other workflows, three pages of the 7 jobs.
    expect(f.calls.list).toBe(4);
  });

  it('describes at most maxWorkflows, the batches first', async () => {
    const runs: Record<string, Pending[]> = {
      batch1: [{ activityId: 'step', state: STARTED, lastWorkerIdentity: dead }],
    };
    for (let i = 0; i < 10; i++) runs[`job${i}`] = [{ activityId: 'await', state: STARTED, lastWorkerIdentity: dead }];
    const f = fakeClient({ pollers: [dead], runs });
    const r = await reapDeadDaemons({
      client: f.client,
      namespace: 'd',
      taskQueue: 'q',
      identity: me,
      logger,
      pageSize: 4,
      maxWorkflows: 5,
    });
    expect(r.workflows).toBe(5);
    expect(f.calls.describe).toBe(5);
    expect(f.failed.map((x) => x.workflowId)).toContain('batch1');
  });

  it('lists nothing when no daemon of this host is gone', async () => {
    const f = fakeClient({
      pollers: [me, live, elsewhere],
      runs: { b: [{ activityId: 'x', state: STARTED, lastWorkerIdentity: live }] },
    });
    const r = await reapDeadDaemons({ client: f.client, namespace: 'd', taskQueue: 'q', identity: me, logger });
    expect(r).toEqual({ dead: [], workflows: 0, activities: 0 });
    expect(f.calls.list).toBe(0);
  });

  it('does nothing, without throwing, when the server cannot list workflows (no advanced visibility)', async () => {
    const f = fakeClient({ pollers: [dead], runs: {}, noVisibility: true });
    const r = await reapDeadDaemons({ client: f.client, namespace: 'd', taskQueue: 'q', identity: me, logger });
    expect(r).toEqual({ dead: [dead], workflows: 0, activities: 0 });
    expect(f.failed).toEqual([]);
  });
});
