/**
 * A batch step's retries (the workflow's orders: jobs the platform's restart failed) are sent first
 * and answered while the step sends its new lines (activities/batch/step.ts): a /retry answered
 * late (a slow or faulty service) holds up no new submission.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { runStep } from '../../activities/batch/step';
import { type StepRequest, type StepResult } from '../../activities/batch/types';
import { type JobSubmission } from '../../contracts';
import { type QueueClient } from '../../platform-api';
import { openResultsStore } from '../../results/store/open';

const dir = mkdtempSync(join(tmpdir(), 'sluice-step-retries-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LINES = 6;
const source = join(dir, 'in.jsonl');
writeFileSync(source, Array.from({ length: LINES }, (_, i) => `{"i":${i}}\n`).join(''));
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
    const req: StepRequest = {
      run: { workflowId: 'batch/step-retries', runId: 'r1' },
      seq: 1,
      endpointId: 'ep',
      source,
      inputFormat: 'auto',
      webhook: false,
      write: [],
      read: { from: { line: 1, offset: 8 }, lines: 4, room: 4, keyCounts: {} },
      submit: [],
      retry: [{ i: 0, o: 0, l: 8, a: 1, id: 'failed-by-the-restart', how: 'retry' }],
      cancel: [],
      poll: [],
      collect: { waitMs: 0, min: 1 },
    };
    const store = openResultsStore(pathToFileURL(join(dir, 'store')).href);
    const res: StepResult = await new MockActivityEnvironment().run(() => runStep({ queue, store }, req));
    expect(sentWhenRetried).toBe(4);
    expect(res.retried).toEqual([{ i: 0, id: 'failed-by-the-restart', how: 'retry' }]);
    expect(res.submitted.map((x) => x.i)).toEqual([1, 2, 3, 4]);
  });
});
