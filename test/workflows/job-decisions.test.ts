/** The job workflow's decisions, with stub activities on the time-skipping test server: seconds, not minutes. */
import { randomUUID } from 'node:crypto';
import { ActivityFailure, ApplicationFailure, CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { CompleteAsyncError } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporalTestServerBinary } from '../../common/tools';
import { JobWorkflowInput, type JobOptionsInput, type JobWorkflowResult } from '../../contracts';
import { workflowBundle } from '../../worker/bundle';
import { jobWorkflow, stateQuery } from '../../workflows';
import { gate, outcome, stubActivities, type Script } from './stub-activities';

const MIN = 60_000;
const taskQueue = 'job-workflow-unit';

describe('job workflow decisions (stub activities, time-skipping test server)', () => {
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  const stubs = stubActivities();

  beforeAll(async () => {
    // Activity failures are the point of these tests; the SDK need not log each one.
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
    });
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: temporalTestServerBinary() } },
    });
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await workflowBundle(),
      activities: stubs.activities,
      shutdownForceTime: '1s',
    });
    running = worker.run();
  });
  afterAll(async () => {
    try {
      if (worker) {
        worker.shutdown();
        await running;
      }
    } finally {
      await env?.teardown();
    }
  });

  /** Starts a job on its own endpoint id, scripted by `script`. */
  const start = async (script: Script, options: JobOptionsInput = {}) => {
    const endpointId = `ep-${randomUUID()}`;
    stubs.script(endpointId, script);
    const args = [JobWorkflowInput.parse({ endpointId, input: { x: 1 }, options })] as const;
    const handle = await env.client.workflow.start(jobWorkflow, {
      taskQueue,
      workflowId: `job/unit-${randomUUID()}`,
      args: [...args],
    });
    const state = () => handle.query(stateQuery);
    const calls = (name?: Parameters<typeof stubs.calls>[1]) => stubs.calls(endpointId, name);
    return { handle, endpointId, state, calls };
  };
  /** Waits (real time) until the workflow's state satisfies `ok`. */
  const until = async (state: () => Promise<unknown>, ok: (s: any) => boolean) => {
    for (let i = 0; i < 200; i++) {
      const s = await state();
      if (ok(s)) return s;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`state never matched; last: ${JSON.stringify(await state())}`);
  };
  const failureOf = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    return (err as WorkflowFailedError).cause;
  };
  /** A job that did not complete fails its workflow with JOB_FAILED / JOB_TIMED_OUT carrying the result. */
  const endedWith = async (p: Promise<unknown>, type: string): Promise<JobWorkflowResult> => {
    const cause = await failureOf(p);
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe(type);
    return (cause as ApplicationFailure).details![0] as JobWorkflowResult;
  };

  it('webhook mode: submits once, waits under the fixed activity id, returns the output; the state query follows the phases', async () => {
    const submitted = gate();
    const finished = gate<'COMPLETED'>();
    const job = await start({
      submit: async () => (await submitted.promise, { remoteJobId: 'r1' }),
      wait: async (ref) => outcome(ref, await finished.promise, { output: { ok: true }, executionTime: 5 }),
    });
    expect(await until(job.state, (s) => s.phase === 'submitting')).toMatchObject({ attempt: 1, attempts: [] });
    submitted.open();
    expect(await until(job.state, (s) => s.phase === 'waiting')).toMatchObject({
      remoteJobId: 'r1',
      status: 'IN_QUEUE',
      attempt: 1,
    });
    finished.open('COMPLETED');
    const r = await job.handle.result();
    expect(r).toMatchObject({ status: 'COMPLETED', output: { ok: true }, executionTime: 5, streamChunks: 0 });
    expect(r.attempts).toEqual([
      expect.objectContaining({ number: 1, how: 'submit', remoteJobId: 'r1', status: 'COMPLETED' }),
    ]);
    expect(job.calls().map((c) => [c.name, c.activityId])).toEqual([
      ['submitJob', expect.any(String)],
      ['awaitCompletion', 'await/r1/0'],
    ]);
    expect(job.calls('submitJob')[0]!.arg).toMatchObject({ attempt: 1, webhook: true, syncWaitMs: 0, input: { x: 1 } });
    expect(await job.state()).toMatchObject({ phase: 'done', status: 'COMPLETED' });
  });

  it('FAILED: after the backoff (time skipped), /retry of the same remote job while its result is retained', async () => {
    const retried = gate();
    const job = await start(
      {
        wait: (ref, n) =>
          outcome(ref, n === 1 ? 'FAILED' : 'COMPLETED', n === 1 ? { error: 'boom' } : { output: 'ok' }),
        retry: () => retried.promise,
      },
      { retry: { initialBackoffMs: 10 * MIN, maxBackoffMs: 10 * MIN } },
    );
    expect(await until(job.state, (s) => s.phase === 'backing-off')).toMatchObject({
      status: 'FAILED',
      attempts: [expect.objectContaining({ error: 'boom' })],
    });
    const result = job.handle.result(); // time skips while the result is awaited
    await until(job.state, (s) => s.phase === 'retrying');
    retried.open();
    const r = await result;
    expect(r.attempts.map((a) => [a.how, a.remoteJobId, a.status])).toEqual([
      ['submit', 'r1', 'FAILED'],
      ['retry', 'r1', 'COMPLETED'],
    ]);
    expect(r.attempts[1]!.startedAt - r.attempts[0]!.endedAt!).toBeGreaterThanOrEqual(10 * MIN);
    expect(job.calls('retryRemoteJob').map((c) => c.arg)).toEqual([{ endpointId: job.endpointId, remoteJobId: 'r1' }]);
    expect(job.calls('awaitCompletion').map((c) => c.activityId)).toEqual(['await/r1/0', 'await/r1/1']);
    expect(job.calls('submitJob')).toHaveLength(1);
  });

  it('backoff grows by the coefficient up to maxBackoffMs; after maxAttempts the last failure is the result', async () => {
    const job = await start(
      { wait: (ref, n) => outcome(ref, 'FAILED', { error: `failure ${n}` }) },
      {
        retry: { maxAttempts: 4, initialBackoffMs: MIN, backoffCoefficient: 3, maxBackoffMs: 4 * MIN },
      },
    );
    const r = await endedWith(job.handle.result(), 'JOB_FAILED');
    expect(r).toMatchObject({ status: 'FAILED', error: 'failure 4' });
    expect(r.attempts.map((a) => a.how)).toEqual(['submit', 'retry', 'retry', 'retry']);
    const gaps = r.attempts.slice(1).map((a, i) => a.startedAt - r.attempts[i]!.endedAt!);
    expect(gaps.map((g, i) => g - [MIN, 3 * MIN, 4 * MIN][i]!).every((d) => d >= 0 && d < 1000)).toBe(true);
    expect(job.calls('awaitCompletion')).toHaveLength(4);
  });

  for (const [backoffMin, how] of [
    [3.5, 'retry'],
    [4.5, 'resubmit'],
  ] as const) {
    it(`retention 5 min, backoff ${backoffMin} min: ${how} (a 1 min margin before the result expires)`, async () => {
      const job = await start(
        { wait: (ref, n) => outcome(ref, n === 1 ? 'TIMED_OUT' : 'COMPLETED') },
        {
          retry: { initialBackoffMs: backoffMin * MIN, maxBackoffMs: 10 * MIN },
          resultRetentionMs: 5 * MIN,
        },
      );
      const r = await job.handle.result();
      expect(r.attempts.map((a) => [a.how, a.status])).toEqual([
        ['submit', 'TIMED_OUT'],
        [how, 'COMPLETED'],
      ]);
      expect(job.calls('submitJob').map((c) => (c.arg as { attempt: number }).attempt)).toEqual(
        how === 'retry' ? [1] : [1, 2],
      );
      expect(job.calls('retryRemoteJob')).toHaveLength(how === 'retry' ? 1 : 0);
      expect(job.calls('awaitCompletion').map((c) => c.activityId)).toEqual([
        'await/r1/0',
        how === 'retry' ? 'await/r1/1' : 'await/r2/0',
      ]);
    });
  }

  it('RETRY_REFUSED: the job is resubmitted with its original input', async () => {
    const job = await start(
      {
        wait: (ref, n) => outcome(ref, n === 1 ? 'FAILED' : 'COMPLETED'),
        retry: () => Promise.reject(ApplicationFailure.nonRetryable('retry refused: expired', 'RETRY_REFUSED')),
      },
      { retry: { initialBackoffMs: 100 } },
    );
    const r = await job.handle.result();
    expect(r.attempts.map((a) => [a.how, a.remoteJobId])).toEqual([
      ['submit', 'r1'],
      ['resubmit', 'r2'],
    ]);
    expect(job.calls('retryRemoteJob')).toHaveLength(1);
    expect(job.calls('submitJob').map((c) => c.arg)).toEqual([
      expect.objectContaining({ attempt: 1, input: { x: 1 } }),
      expect.objectContaining({ attempt: 2, input: { x: 1 } }),
    ]);
  });

  it('runsync: the outcome comes with the submission (no wait activity); a failed one is resubmitted, never /retried', async () => {
    const job = await start(
      {
        submit: (a) => {
          const remoteJobId = `s${a.attempt}`;
          return {
            remoteJobId,
            outcome: outcome({ remoteJobId }, a.attempt === 1 ? 'FAILED' : 'COMPLETED', { via: 'runsync' }),
          };
        },
      },
      { syncWaitMs: 5000, retry: { initialBackoffMs: 100 } },
    );
    const r = await job.handle.result();
    expect(r.attempts.map((a) => [a.how, a.remoteJobId, a.status])).toEqual([
      ['submit', 's1', 'FAILED'],
      ['resubmit', 's2', 'COMPLETED'],
    ]);
    expect(job.calls().map((c) => c.name)).toEqual(['submitJob', 'submitJob']);
    expect(job.calls('submitJob')[0]!.arg).toMatchObject({ syncWaitMs: 5000 });
  });

  it('poll mode polls under the webhook id; stream mode drains under a drain id; unlisted statuses are not retried', async () => {
    const poll = await start(
      { wait: (ref) => outcome(ref, 'TIMED_OUT') },
      { completion: 'poll', retry: { retryOn: ['FAILED'] } },
    );
    expect((await endedWith(poll.handle.result(), 'JOB_TIMED_OUT')).attempts).toHaveLength(1);
    expect(
      poll
        .calls()
        .map((c) => [c.name, c.name === 'submitJob' ? (c.arg as { webhook: boolean }).webhook : c.activityId]),
    ).toEqual([
      ['submitJob', false],
      ['pollCompletion', 'await/r1/0'],
    ]);
    const stream = await start(
      { wait: (ref) => outcome(ref, 'COMPLETED', { streamChunks: 7 }) },
      { stream: true, syncWaitMs: 5000 },
    );
    expect(await stream.handle.result()).toMatchObject({ status: 'COMPLETED', streamChunks: 7 });
    expect(stream.calls('submitJob')[0]!.arg).toMatchObject({ webhook: false, syncWaitMs: 0 });
    expect(stream.calls('drainStream').map((c) => c.activityId)).toEqual(['drain/r1/0']);
  });

  for (const type of ['JOB_EXPIRED', 'ENDPOINT_NOT_FOUND', 'UNAUTHORIZED']) {
    it(`${type} ends the workflow at the first failure (even when thrown as retryable)`, async () => {
      // A second call would complete the job: a retried failure fails this test at once, not by timeout.
      const job = await start({
        wait: (ref, n) =>
          n === 1 ? Promise.reject(ApplicationFailure.retryable(`it is ${type}`, type)) : outcome(ref, 'COMPLETED'),
      });
      const cause = await failureOf(job.handle.result());
      expect(cause).toBeInstanceOf(ActivityFailure);
      expect((cause!.cause as ApplicationFailure).type).toBe(type);
      expect(job.calls('awaitCompletion')).toHaveLength(1);
    });
  }

  it('other activity failures are retried by Temporal with no new attempt of the job', async () => {
    const job = await start({
      wait: (ref, n) =>
        n < 3 ? Promise.reject(ApplicationFailure.retryable('503', 'SERVER_ERROR')) : outcome(ref, 'COMPLETED'),
    });
    const r = await job.handle.result();
    expect(r.attempts).toHaveLength(1);
    expect(job.calls('awaitCompletion').map((c) => c.attempt)).toEqual([1, 2, 3]);
  });

  it('cancellation: cancels the remote job by its id; the workflow ends CANCELLED', async () => {
    const job = await start({ wait: () => Promise.reject(new CompleteAsyncError()) });
    await until(job.state, (s) => s.phase === 'waiting');
    await job.handle.cancel();
    expect(await failureOf(job.handle.result())).toBeInstanceOf(CancelledFailure);
    expect(job.calls('cancelRemoteJob').map((c) => c.arg)).toEqual([{ endpointId: job.endpointId, remoteJobId: 'r1' }]);
    expect(await job.state()).toMatchObject({ phase: 'cancelling', status: 'CANCELLED' });
  });
});
