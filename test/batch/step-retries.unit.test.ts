/**
 * A batch step's retries (the workflow's orders: jobs the platform's restart failed) are sent first
 * and answered while the step sends its new lines (activities/batch/step.ts): a /retry answered
 * late (a slow or faulty service) holds up no new submission.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { runStep } from '../../activities/batch/step';
import { type StepResult } from '../../activities/batch/types';
import { type JobSubmission } from '../../contracts';
import { type QueueClient } from '../../platform-api';
import { stepFiles, stepRequest } from './step-fixture';

const LINES = 6;
const { source, store: storeIn } = stepFiles('step-retries', LINES);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a batch step's retries", () => {
  it('are answered while the step sends its new lines: a slow /retry holds up no submission', async () => {
    let sent = 0;
    let sentWhenRetried: number | undefined;
    const queue = {
      run: async (_ep: string, body: JobSubmission) => {
        sent++;
        return { id: `job-of-${JSON.stringify(body.input)}`, status: 'IN_QUEUE' };
      },
      // Answered once the step sent its new lines, or after 2 s (before the change: they waited for it).
      retry: async (_ep: string, id: string) => {
        for (let t = 0; sent < 4 && t < 2000; t += 20) await sleep(20);
        sentWhenRetried = sent;
        return { id, status: 'IN_QUEUE' };
      },
    } as unknown as Pick<QueueClient, 'run' | 'retry' | 'cancel' | 'status'>;
    const req = stepRequest('batch/step-retries', source, {
      webhook: false,
      read: { from: { line: 1, offset: 8 }, lines: 4, room: 4, keyCounts: {} },
      retry: [{ i: 0, o: 0, l: 8, a: 1, id: 'failed-by-the-restart', how: 'retry' }],
      collect: { waitMs: 0, min: 1 },
    });
    const store = storeIn('store');
    const res: StepResult = await new MockActivityEnvironment().run(() => runStep({ queue, store }, req));
    expect(sentWhenRetried).toBe(4);
    expect(res.retried).toEqual([{ i: 0, id: 'failed-by-the-restart', how: 'retry' }]);
    expect(res.submitted.map((x) => x.i)).toEqual([1, 2, 3, 4]);
  });
});
