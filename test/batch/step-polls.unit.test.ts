/**
 * A batch step's polls (the workflow's orders: late jobs, a dead daemon's jobs) run while the step
 * refills (activities/batch/step.ts): a poll answered late (a slow service, issue 19's delays) holds
 * up no new submission, and what it finds is still the step's completion, marked polled. With the
 * daemon's memory of the batch's jobs, a poll answered seconds late holds up no step either: it is
 * handed on, and its record is the next step's.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { runStep } from '../../activities/batch/step';
import { type StepResult } from '../../activities/batch/types';
import { type JobRecord, type JobSubmission } from '../../contracts';
import { type QueueClient } from '../../platform-api';
import { type InboxReader } from '../../results/batch/inbox';
import { WebhookHealth } from '../../results/webhook-health';
import { InFlightJobs } from '../../activities/batch/in-flight';
import { POLL_PATIENCE_MS } from '../../activities/batch/step-polls';
import { busyInbox, stepFiles, stepRequest } from './step-fixture';

const LINES = 10;
const { source, store: storeIn } = stepFiles('step-polls', LINES);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a batch step's polls", () => {
  it("run while the step refills: a slow answer holds up no submission, and its record is the step's", async () => {
    let sent = 0;
    let sentWhenAnswered: number | undefined;
    const queue = {
      run: async (_ep: string, body: JobSubmission) => {
        sent++;
        return { id: `job-of-${JSON.stringify(body.input)}`, status: 'IN_QUEUE' };
      },
      // Answered once the step sent every line, or after 2 s (before the change: the refill waited for it).
      status: async (_ep: string, id: string) => {
        for (let t = 0; sent < LINES && t < 2000; t += 20) await sleep(20);
        sentWhenAnswered = sent;
        return { id, status: 'COMPLETED', output: { late: true } } as JobRecord;
      },
    } as unknown as Pick<QueueClient, 'run' | 'retry' | 'cancel' | 'status'>;
    const req = stepRequest('batch/step-polls', source, {
      poll: ['slow-job'],
    });
    const store = storeIn('store');
    const res: StepResult = await new MockActivityEnvironment().run(() =>
      runStep({ queue, store, inbox: busyInbox() }, req),
    );
    expect(sentWhenAnswered).toBe(LINES);
    expect(res.submitted).toHaveLength(LINES);
    expect(res.completions.filter((c) => c.id === 'slow-job')).toEqual([expect.objectContaining({ q: 1 })]);
  });

  it('free their slots: a job a poll finds done is replaced by the next line, as one heard of is', async () => {
    let sent = 0;
    const queue = {
      run: async (_ep: string, body: JobSubmission) => {
        sent++;
        return { id: `job-of-${JSON.stringify(body.input)}`, status: 'IN_QUEUE' };
      },
      status: async (_ep: string, id: string) => {
        await sleep(50);
        return { id, status: 'COMPLETED', output: {} } as JobRecord;
      },
    } as unknown as Pick<QueueClient, 'run' | 'retry' | 'cancel' | 'status'>;
    // No webhook comes (a dead daemon's jobs: theirs went to it): only the polls free slots.
    const silent: InboxReader = {
      wait: (_min, ms, signal) =>
        new Promise<void>((resolve) => {
          const t = setTimeout(resolve, ms);
          signal?.addEventListener('abort', () => (clearTimeout(t), resolve()));
        }),
      take: async () => [],
      position: () => ({}),
    };
    const req = stepRequest('batch/step-polls-room', source, {
      poll: ['dead-1', 'dead-2', 'dead-3'],
      collect: { waitMs: 0, min: 1, refillMs: 500 },
    });
    const store = storeIn('store-room');
    const res: StepResult = await new MockActivityEnvironment().run(() =>
      runStep({ queue, store, inbox: { open: async () => silent } }, req),
    );
    expect(sent).toBe(2 + 3);
    expect(res.completions.map((c) => c.id).sort()).toEqual(['dead-1', 'dead-2', 'dead-3']);
  });

  it('keep the refill going while they are under way: the step waits for them anyway', async () => {
    let sent = 0;
    let n = 0;
    const queue = {
      run: async (_ep: string, body: JobSubmission) => {
        sent++;
        return { id: `job-of-${JSON.stringify(body.input)}`, status: 'IN_QUEUE' };
      },
      status: async (_ep: string, id: string) => {
        await sleep(800);
        return { id, status: 'IN_PROGRESS' } as JobRecord;
      },
    } as unknown as Pick<QueueClient, 'run' | 'retry' | 'cancel' | 'status'>;
    // A job heard of every 100 ms.
    const steady: InboxReader = {
      wait: async () => void (await sleep(100)),
      take: async () => [{ id: `heard-${n++}`, status: 'COMPLETED', output: {} } as JobRecord],
      position: () => ({}),
    };
    const req = stepRequest('batch/step-polls-going', source, {
      read: { from: { line: 0, offset: 0 }, lines: 1, room: 1, keyCounts: {} },
      poll: ['slow'],
      collect: { waitMs: 0, min: 1, refillMs: 150 },
    });
    const store = storeIn('store-going');
    const res: StepResult = await new MockActivityEnvironment().run(() =>
      runStep({ queue, store, inbox: { open: async () => steady } }, req),
    );
    // 1 read, then one line per job heard of over the poll's 800 ms (not the refill's 150 ms).
    expect(sent).toBeGreaterThanOrEqual(6);
    expect(res.polledRunning).toEqual(['slow']);
  });

  it("count no missed webhook for a dead daemon's jobs (theirs went to it), one for a job this daemon sent", async () => {
    const queue = {
      run: async (_ep: string, body: JobSubmission) => ({
        id: `job-of-${JSON.stringify(body.input)}`,
        status: 'IN_QUEUE',
      }),
      status: async (_ep: string, id: string) => ({ id, status: 'COMPLETED', output: {} }) as JobRecord,
    } as unknown as Pick<QueueClient, 'run' | 'retry' | 'cancel' | 'status'>;
    const health = new WebhookHealth({ graceMs: 0 });
    const inFlight = new InFlightJobs();
    const wf = 'batch/step-polls-misses';
    inFlight.add(wf, 'mine');
    const req = stepRequest(wf, source, { poll: ['dead-1', 'dead-2', 'dead-3', 'dead-4', 'mine'], read: undefined });
    await new MockActivityEnvironment().run(() =>
      runStep({ queue, store: storeIn('store-misses'), inbox: busyInbox(), health, inFlight }, req),
    );
    expect(health.snapshot().missed).toBe(1);
    expect(health.healthy()).toBe(true);
  });

  it("hand on a poll answered late (with the daemon's memory of the batch): the step ends, the next takes its record", async () => {
    const SLOW_MS = POLL_PATIENCE_MS + 1500;
    let answered = false;
    const queue = {
      run: async (_ep: string, body: JobSubmission) => ({
        id: `job-of-${JSON.stringify(body.input)}`,
        status: 'IN_QUEUE',
      }),
      status: async (_ep: string, id: string) => {
        if (id === 'slow') {
          await sleep(SLOW_MS);
          answered = true;
        }
        return { id, status: 'COMPLETED', output: {} } as JobRecord;
      },
    } as unknown as Pick<QueueClient, 'run' | 'retry' | 'cancel' | 'status'>;
    // No webhook comes (a dead daemon's jobs: theirs went to it).
    const silent: InboxReader = {
      wait: (_min, ms, signal) =>
        new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(ms, 50));
          signal?.addEventListener('abort', () => (clearTimeout(t), resolve()));
        }),
      take: async () => [],
      position: () => ({}),
    };
    const inFlight = new InFlightJobs();
    const wf = 'batch/step-polls-hand-on';
    const deps = { queue, store: storeIn('store-hand-on'), inbox: { open: async () => silent }, inFlight };
    const req = stepRequest(wf, source, { poll: ['quick', 'slow'], read: undefined });
    const t0 = Date.now();
    const first: StepResult = await new MockActivityEnvironment().run(() => runStep(deps, req));
    const tookMs = Date.now() - t0;
    expect(answered).toBe(false);
    expect(tookMs).toBeLessThan(SLOW_MS);
    expect(first.completions.map((c) => c.id)).toEqual(['quick']);
    expect(first.polledRunning).toEqual([]);
    await sleep(SLOW_MS - tookMs + 200);
    expect(answered).toBe(true);
    const next: StepResult = await new MockActivityEnvironment().run(() =>
      runStep(deps, stepRequest(wf, source, { seq: 2, read: undefined })),
    );
    expect(next.completions).toEqual([expect.objectContaining({ id: 'slow', q: 1 })]);
  });

  it("count no missed webhook for a replayed submission's job (the dead daemon's first job: its webhook went there)", async () => {
    const queue = {
      run: async (_ep: string, body: JobSubmission) => ({
        id: `job-of-${JSON.stringify(body.input)}`,
        status: 'IN_QUEUE',
        replayed: true,
      }),
      status: async (_ep: string, id: string) => ({ id, status: 'COMPLETED', output: {} }) as JobRecord,
    } as unknown as Pick<QueueClient, 'run' | 'retry' | 'cancel' | 'status'>;
    const health = new WebhookHealth({ graceMs: 0 });
    const inFlight = new InFlightJobs();
    const wf = 'batch/step-polls-replayed';
    const deps = { queue, store: storeIn('store-replayed'), inbox: busyInbox(), health, inFlight };
    // Every line's submission replayed: the step polls those jobs at once (their webhooks are gone).
    const req = stepRequest(wf, source, {
      read: { from: { line: 0, offset: 0 }, lines: 5, room: 5, keyCounts: {} },
      collect: { waitMs: 300, min: 100, refillMs: 0 },
    });
    const res: StepResult = await new MockActivityEnvironment().run(() => runStep(deps, req));
    expect(res.submitted.filter((x) => x.dup)).toHaveLength(5);
    expect(health.snapshot().fallbackPolls).toBeGreaterThanOrEqual(5);
    // And the workflow's own poll of one of them at the next step.
    await new MockActivityEnvironment().run(() =>
      runStep(deps, stepRequest(wf, source, { seq: 2, read: undefined, poll: [res.submitted[0]!.id] })),
    );
    expect(health.snapshot().missed).toBe(0);
    expect(health.healthy()).toBe(true);
  });
});
