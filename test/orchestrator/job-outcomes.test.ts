/**
 * What a job workflow ends as: a reused id runs anew with its own records, Temporal's status
 * tells a failed job from a completed one, and errors the retry options name are not retried.
 */
import { join } from 'node:path';
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orchestratorStack } from '../helpers/orchestrator';
import { addEndpoint } from '../helpers/platform';
import { isolatedHome, pyDir, requireVenvPython } from '../interop/support';

type Stack = Awaited<ReturnType<typeof orchestratorStack>>;

describe('job workflow outcomes', () => {
  let s: Stack;
  let home: ReturnType<typeof isolatedHome>;
  let pyFail: string;
  beforeAll(async () => {
    s = await orchestratorStack();
    home = isolatedHome();
    pyFail = addEndpoint(s.platform, {
      name: 'py-fail',
      command: [requireVenvPython(), '-u', join(pyDir, 'fail_worker.py')],
      workersMin: 1,
      workersMax: 1,
    }).id;
  });
  afterAll(async () => {
    await s?.dispose();
    home?.dispose();
  });

  it('a reused id is refused while its job runs, and after it closed runs anew with its own input', async () => {
    const echo = s.platform.examples.echo!.id;
    const id = `reused-${Date.now()}`;
    const first = await s.sluice.start({ id, endpointId: echo, input: { n: 1 } });
    const r1 = await s.sluice.result(first);
    expect(r1.output).toEqual({ n: 1 });

    const started = Date.now();
    const second = await s.sluice.start({ id, endpointId: echo, input: { n: 2 } });
    expect(second).toBe(first);
    const r = await s.sluice.result(second);
    expect(r.output).toEqual({ n: 2 });
    expect(r.attempts[0]!.remoteJobId).not.toBe(r1.attempts[0]!.remoteJobId);
    // Its own webhook, not the 30 s fallback poll of a wait for someone else's job (the margin absorbs a loaded machine).
    expect(Date.now() - started).toBeLessThan(25_000);

    const sleep = s.platform.examples.sleep!.id;
    const busy = `busy-${Date.now()}`;
    await s.sluice.start({ id: busy, endpointId: sleep, input: { ms: 30_000 } });
    await expect(s.sluice.start({ id: busy, endpointId: sleep, input: { ms: 1 } })).rejects.toBeInstanceOf(
      WorkflowExecutionAlreadyStartedError,
    );
    await s.sluice.cancel(`job/${busy}`);
  });

  it('a job that fails its last attempt fails the workflow with JOB_FAILED carrying the attempts; result() still reads it', async () => {
    const id = await s.sluice.start({
      endpointId: s.platform.examples.fail!.id,
      input: { message: 'no good' },
      options: { retry: { maxAttempts: 2, initialBackoffMs: 10 } },
    });
    const err = await s.env.client.workflow
      .getHandle(id)
      .result()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause.type).toBe('JOB_FAILED');
    expect(cause.message).toMatch(/FAILED after 2 attempts: .*no good/);
    expect((cause.details?.[0] as { attempts: unknown[] }).attempts).toHaveLength(2);
    expect((await s.env.client.workflow.getHandle(id).describe()).status.name).toBe('FAILED');

    const r = await s.sluice.result(id);
    expect(r).toMatchObject({ status: 'FAILED', error: expect.stringMatching(/no good/) });
    expect(r.attempts.map((a) => a.status)).toEqual(['FAILED', 'FAILED']);
    const view = await s.sluice.state(id);
    expect(view).toMatchObject({ workflowStatus: 'FAILED', result: { status: 'FAILED' } });
  });

  it('an error type named in nonRetryableErrorTypes is not retried (stock Python worker SDK, ValueError)', async () => {
    const retried = await s.sluice.start({
      endpointId: pyFail,
      input: { reason: 'a' },
      options: { retry: { maxAttempts: 2, initialBackoffMs: 10 } },
    });
    const r1 = await s.sluice.result(retried);
    expect(r1.attempts).toHaveLength(2);
    expect(r1.errorType).toBe('ValueError');

    const id = await s.sluice.start({
      endpointId: pyFail,
      input: { reason: 'b' },
      options: { retry: { maxAttempts: 3, initialBackoffMs: 10, nonRetryableErrorTypes: ['ValueError'] } },
    });
    const r = await s.sluice.result(id);
    expect(r.status).toBe('FAILED');
    expect(r.attempts).toHaveLength(1);
    expect(r.error).toMatch(/python handler refused: b/);
  });

  it('an error message matching nonRetryableErrorPatterns is not retried, others are', async () => {
    const fail = s.platform.examples.fail!.id;
    const options = { retry: { maxAttempts: 3, initialBackoffMs: 10, nonRetryableErrorPatterns: ['^invalid prompt'] } };
    const never = await s.sluice.result(
      await s.sluice.start({ endpointId: fail, input: { message: 'invalid prompt: empty' }, options }),
    );
    expect(never.attempts).toHaveLength(1);
    const again = await s.sluice.result(
      await s.sluice.start({ endpointId: fail, input: { message: 'CUDA out of memory' }, options }),
    );
    expect(again.attempts).toHaveLength(3);
  });

  it('refuses an invalid pattern before starting', async () => {
    await expect(
      s.sluice.start({ endpointId: 'x', input: {}, options: { retry: { nonRetryableErrorPatterns: ['(unclosed'] } } }),
    ).rejects.toThrow(/not a valid regular expression/);
  });
});
