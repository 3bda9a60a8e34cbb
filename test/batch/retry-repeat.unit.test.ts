/**
 * A `/retry` the service applied but whose answer was lost (a reset after it answered, a step
 * retried before it journaled the call): repeated, the service refuses it ("only FAILED or
 * TIMED_OUT jobs can be retried"). Submitter.retry (activities/batch/submitter.ts) then asks the
 * job's status: one that left FAILED was retried (done, no resubmission: one remote job per input);
 * one still FAILED, or gone, was refused for good (the retry rule resubmits it).
 */
import { describe, expect, it } from 'vitest';
import { Submitter, type SubmitterQueue } from '../../activities/batch/submitter';
import { type StepRequest } from '../../activities/batch/types';
import { type JobRecord } from '../../contracts';
import { BadRequestError, NetworkError, NotFoundError } from '../../platform-api';
import { type ObjectStore } from '../../results/store/object-store';

const req = { run: { workflowId: 'batch/b', runId: 'r1' }, seq: 2, endpointId: 'ep' } as StepRequest;

const memoryStore = (entries: unknown[]) =>
  ({
    lines: () => Promise.resolve([]),
    append: (_key: string, group: unknown[]) => Promise.resolve(void entries.push(...group)),
  }) as unknown as ObjectStore;

const wrongState = () =>
  new BadRequestError('job j1 is IN_QUEUE; only FAILED or TIMED_OUT jobs can be retried', { operation: 'retry' });

/** A service that refuses every `/retry` of job j1 as a repeat, its `/status` answering `status` (or throwing it). */
function service(status: JobRecord['status'] | Error): SubmitterQueue {
  return {
    run: () => Promise.reject(new Error('no /run expected')),
    retry: () => Promise.reject(wrongState()),
    status: async (_ep: string, id: string) => {
      if (status instanceof Error) throw status;
      return { id, status } as JobRecord;
    },
  } as unknown as SubmitterQueue;
}

async function retryOnce(queue: SubmitterQueue): Promise<{ r: string; journal: unknown[] }> {
  const journal: unknown[] = [];
  const sub = await Submitter.open(queue, memoryStore(journal), req, undefined);
  const r = await sub.retry(7, 'j1', 2);
  await sub.flush();
  return { r, journal };
}

describe('Submitter.retry refused as a repeat', () => {
  it.each(['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED'] as const)(
    'the job %s since: the retry was applied (done, journaled), not refused',
    async (status) => {
      const { r, journal } = await retryOnce(service(status));
      expect(r).toBe('done');
      expect(journal).toEqual([{ i: 7, a: 2, id: 'j1', how: 'retry' }]);
    },
  );

  it('the job still FAILED, or gone: refused (resubmitted by the rule)', async () => {
    expect((await retryOnce(service('FAILED'))).r).toBe('refused');
    expect((await retryOnce(service(new NotFoundError('job j1 not found', { operation: 'status' })))).r).toBe(
      'refused',
    );
  });

  it('its status unknown (the service unreachable): the step fails, nothing is resubmitted', async () => {
    const down = new NetworkError('connect ECONNREFUSED', { operation: 'status', mayHaveReachedServer: false });
    await expect(retryOnce(service(down))).rejects.toThrow();
  });
});
