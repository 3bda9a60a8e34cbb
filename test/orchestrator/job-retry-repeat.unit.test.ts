/**
 * The job workflow's `/retry` (activities/job/activities.ts `retryRemoteJob`), repeated after the
 * service applied it but its answer was lost (a reset after the answer: the activity is retried):
 * the service refuses the repeat ("only FAILED or TIMED_OUT jobs can be retried"). A job that left
 * FAILED since was retried (the activity succeeds: the workflow waits for that run, no second remote
 * job); one still FAILED, or gone, is refused for good (RETRY_REFUSED: the workflow resubmits).
 */
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { createJobActivities } from '../../activities/job/activities';
import { FailureType } from '../../contracts/names';
import { type JobRecord } from '../../contracts';
import { BadRequestError, NetworkError, NotFoundError } from '../../platform-api';
import { type ActivityDeps } from '../../activities/job/calls';

const ref = { endpointId: 'ep', remoteJobId: 'j1' };

/** A service that refuses every `/retry` of j1 as in the wrong state, its `/status` answering `status` (or throwing it). */
function activities(status: JobRecord['status'] | Error) {
  const calls: string[] = [];
  const unexpected = () => Promise.reject(new Error('not expected'));
  const queue = {
    run: unexpected,
    runSync: unexpected,
    stream: unexpected,
    cancel: unexpected,
    health: unexpected,
    retry: () => {
      calls.push('retry');
      return Promise.reject(
        new BadRequestError('job j1 is IN_QUEUE; only FAILED or TIMED_OUT jobs can be retried', { operation: 'retry' }),
      );
    },
    status: async (_ep: string, id: string) => {
      calls.push('status');
      if (status instanceof Error) throw status;
      return { id, status } as JobRecord;
    },
  } as unknown as ActivityDeps['queue'];
  return { calls, act: createJobActivities({ queue, store: {} as ActivityDeps['store'] }) };
}

describe('the job activity retryRemoteJob, refused as a repeat', () => {
  it.each(['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED'] as const)(
    'the job %s since: the retry was applied, the activity succeeds',
    async (status) => {
      const { calls, act } = activities(status);
      await expect(act.retryRemoteJob(ref)).resolves.toBeUndefined();
      expect(calls).toEqual(['retry', 'status']);
    },
  );

  it('the job still FAILED, or gone: refused for good (the workflow resubmits)', async () => {
    for (const status of ['FAILED', new NotFoundError('job j1 not found', { operation: 'status' })] as const) {
      const { act } = activities(status);
      const err = await act.retryRemoteJob(ref).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApplicationFailure);
      expect((err as ApplicationFailure).type).toBe(FailureType.RETRY_REFUSED);
      expect((err as ApplicationFailure).nonRetryable).toBe(true);
    }
  });

  it('its status unknown (the service unreachable): the activity fails to be retried, not refused', async () => {
    const down = new NetworkError('connect ECONNREFUSED', { operation: 'status', mayHaveReachedServer: false });
    const err = await activities(down)
      .act.retryRemoteJob(ref)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).type).not.toBe(FailureType.RETRY_REFUSED);
    expect((err as ApplicationFailure).nonRetryable).toBe(false);
  });
});
