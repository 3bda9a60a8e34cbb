/**
 * The step that sends a file's last line (activities/batch/step.ts, `collect.last`) goes on collecting
 * as the workflow's next step would: it returns with every job the batch holds, so no step of its
 * own follows for the last completions (issue 23); a failure among them ends it at once.
 */
import { describe, expect, it } from 'vitest';
import { runStep } from '../../activities/batch/step';
import { type JobRecord, type JobSubmission, type JobStatus } from '../../contracts';
import { type QueueClient } from '../../platform-api';
import { type BatchInbox } from '../../results/batch/inbox';
import { stepFiles, stepRequest } from './step-fixture';

const { source, store: storeIn } = stepFiles('last-collect', 4);
const JOBS = ['held-0', 'held-1', 'held-2', ...[0, 1, 2, 3].map((i) => `job-of-{"i":${i}}`)];

/**
 * An inbox whose jobs finish only when the step waits for them, as many as it asks for (the batch's 3 held ones,
 * `held-N`, then the step's 4): what arrives does not depend on how fast this machine runs the step.
 */
function laterInbox(status: (id: string) => JobStatus): BatchInbox & { waits: { min: number; linger?: number }[] } {
  const ids = JOBS;
  const waits: { min: number; linger?: number }[] = [];
  let arrived = 0;
  let taken = 0;
  return {
    waits,
    open: async () => ({
      async wait(min, _ms, _signal, linger) {
        waits.push({ min, ...(linger !== undefined ? { linger } : {}) });
        arrived = Math.min(ids.length, Math.max(arrived, taken + min));
        await new Promise((r) => setTimeout(r, 5));
      },
      take: async () => {
        const out = ids.slice(taken, arrived).map((id) => ({ id, status: status(id), output: {} }) as JobRecord);
        taken = arrived;
        return out;
      },
      position: () => ({}),
    }),
  };
}

async function lastStep(name: string, last: boolean, status: (id: string) => JobStatus = () => 'COMPLETED') {
  const queue = {
    run: async (_ep: string, body: JobSubmission) => ({
      id: `job-of-${JSON.stringify(body.input)}`,
      status: 'IN_QUEUE',
    }),
  } as unknown as Pick<QueueClient, 'run' | 'retry' | 'cancel' | 'status'>;
  const inbox = laterInbox(status);
  const req = stepRequest(`batch/${name}`, source, {
    collect: {
      waitMs: 0,
      min: 1,
      refillMs: 1000,
      ...(last ? { last: { held: 3, waitMs: 5000, linger: 1000 } } : {}),
    },
  });
  const res = await runStep({ queue, store: storeIn(name), inbox }, req);
  return { res, waits: inbox.waits };
}

describe("the step that sends a file's last line", () => {
  it('collects on until every job held is done: the 3 held and its own 4', async () => {
    const { res, waits } = await lastStep('last', true);
    expect(res.read).toMatchObject({ eof: true });
    expect(res.submitted.map((s) => s.i)).toEqual([0, 1, 2, 3]);
    expect(res.completions.map((c) => c.id).sort()).toEqual([...JOBS].sort());
    // The refill sent lines 2 and 3 as two of the held finished; the step then waited for the other five.
    expect(waits.at(-1)).toEqual({ min: 5, linger: 1000 });
  });

  it('without the order (a workflow recorded before), ends with what came while it sent', async () => {
    const { res } = await lastStep('before', false);
    expect(res.read).toMatchObject({ eof: true });
    expect(res.completions.length).toBeLessThan(JOBS.length);
  });

  it('ends at once when a job failed (the workflow decides its retry)', async () => {
    const { res } = await lastStep('failed', true, (id) => (id === 'held-0' ? 'FAILED' : 'COMPLETED'));
    expect(res.completions.length).toBeLessThan(JOBS.length);
  });
});
