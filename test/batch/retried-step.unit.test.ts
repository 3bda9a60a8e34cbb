/**
 * A retried batch step (its daemon died: a heartbeat timeout; activities/batch/step.ts) ends once
 * its orders are sent: no wait for completions, and one refill pass without waiting (the slots of the
 * jobs its inbox already holds finished). The workflow's next step polls the dead daemon's jobs
 * (workflows/batch/ledger-step.ts newDaemon); a first attempt refills and waits as before.
 * And it unsticks its workflow first (activities/batch/activities.ts), so the task its end schedules
 * goes to a live daemon, not to the dead one's sticky queue for the sticky timeout.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { createBatchActivities } from '../../activities/batch/activities';
import { runStep } from '../../activities/batch/step';
import { type JobSubmission } from '../../contracts';
import { QueueClient } from '../../platform-api';
import { busyInbox, stepFiles, stepRequest } from './step-fixture';

const LINES = 10;
const { source, store: storeIn } = stepFiles('retried-step', LINES);

/** A step of a new batch: read 2 lines (room 2), refill for 10 minutes, wait up to 5 s for a completion. */
async function step(attempt: number): Promise<{ sent: number; waits: number[] }> {
  const store = storeIn(`store-${attempt}`);
  let sent = 0;
  const queue = {
    run: async (_ep: string, body: JobSubmission) => ({
      id: `job-of-${JSON.stringify(body.input)}`,
      status: 'IN_QUEUE',
    }),
  } as unknown as Pick<QueueClient, 'run' | 'retry' | 'cancel' | 'status'>;
  const counted = { ...queue, run: async (...a: Parameters<QueueClient['run']>) => (sent++, queue.run(...a)) };
  const inbox = busyInbox();
  const req = stepRequest(`batch/retried-${attempt}`, source, {
    collect: { waitMs: 5000, min: 1, refillMs: 600_000 },
  });
  const env = new MockActivityEnvironment({ attempt });
  await env.run(() => runStep({ queue: counted, store, inbox }, req));
  return { sent, waits: inbox.waits };
}

describe('a retried batch step', () => {
  it('sends its own orders, refills the slots its inbox already freed, and ends: no wait for completions', async () => {
    const r = await step(2);
    // Its 2 lines, and 1 more for the finished job the inbox held (one pass: it takes once).
    expect(r.sent).toBe(3);
    expect(r.waits).toEqual([]);
  });

  it('a first attempt refills the window to the end of the input, as before', async () => {
    const r = await step(1);
    expect(r.sent).toBe(LINES);
  });
});

describe('a retried batch step unsticks its workflow', () => {
  const execution = { workflowId: 'batch/unstick', runId: 'run-2' };
  async function unstuck(attempt: number): Promise<unknown[]> {
    const calls: unknown[] = [];
    const acts = createBatchActivities({
      // No call is made: the step has no orders.
      queue: new QueueClient({ baseUrl: 'http://127.0.0.1:9/v2', apiKey: 'k', rateBudget: false }),
      store: storeIn(`unstick-${attempt}`),
      unstick: async (e) => void calls.push(e),
    });
    const req = stepRequest(execution.workflowId, source, {
      run: { workflowId: execution.workflowId, runId: 'run-1' },
      webhook: false,
      collect: { waitMs: 0, min: 1 },
      read: undefined,
    });
    await new MockActivityEnvironment({ attempt, workflowExecution: execution }).run(() => acts.batchStep(req));
    return calls;
  }

  it('before its step runs (its daemon most likely died), with the run it is of', async () => {
    expect(await unstuck(2)).toEqual([execution]);
  });

  it('never on a first attempt', async () => {
    expect(await unstuck(1)).toEqual([]);
  });
});
