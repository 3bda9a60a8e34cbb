/** The inputs of a user's runJob / runBatch / runPipeline, parsed on sluice's daemon (activities/inputs.ts): the library's defaults, or INVALID_INPUT naming the fields. */
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { createInputActivities } from '../../activities/inputs';
import { BatchOptions, JobOptions, PipelineRunOptions } from '../../contracts';
import { FailureType } from '../../contracts/names';

const inputs = createInputActivities();

/** The failure an activity call rejects with. */
async function failureOf(call: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

describe("a user's workflow inputs", () => {
  it('gives a job and a batch the same defaults as the library', async () => {
    const job = await inputs.parseJobInput({
      endpointId: 'e',
      input: { n: 1 },
      options: { retry: { maxAttempts: 5 } },
    });
    expect(job.options).toEqual({ ...JobOptions.parse({}), retry: { ...JobOptions.parse({}).retry, maxAttempts: 5 } });
    const batch = await inputs.parseBatchInput({ endpointId: 'e', source: '/in.jsonl', outDir: 's3://bucket/out' });
    expect(batch.options).toEqual(BatchOptions.parse({}));
    expect(batch).toMatchObject({ source: '/in.jsonl', outDir: 's3://bucket/out' });
  });

  it('refuses a bad input, not retryable, with INVALID_INPUT and the fields at fault', async () => {
    const job = await failureOf(
      inputs.parseJobInput({ endpointId: '', input: { n: 1 }, options: { retry: { maxAttempts: 0 } } }),
    );
    expect(job).toMatchObject({ type: FailureType.INVALID_INPUT, nonRetryable: true });
    expect(job.message).toMatch(/^invalid job input: endpointId: .*; options\.retry\.maxAttempts: /);
    const batch = await failureOf(
      inputs.parseBatchInput({ endpointId: 'e', source: 'in.jsonl', outDir: '/out', options: { concurrency: 0 } }),
    );
    expect(batch).toMatchObject({ type: FailureType.INVALID_INPUT, nonRetryable: true });
    expect(batch.message).toMatch(/options\.concurrency/);
  });

  it('refuses a relative batch path (a workflow has no working directory) and a rerun reference', async () => {
    const relative = await failureOf(inputs.parseBatchInput({ endpointId: 'e', source: 'in.jsonl', outDir: '/out' }));
    expect(relative.message).toBe(
      'invalid batch input: source: must be an absolute path or an s3:// URL, got "in.jsonl"',
    );
    const out = await failureOf(inputs.parseBatchInput({ endpointId: 'e', source: '/in.jsonl', outDir: 'out' }));
    expect(out.message).toMatch(/outDir: must be an absolute path/);
    // A rerun's reference is the library's (`rerunFailed`): a caller's is dropped, never obeyed.
    const rerun = await inputs.parseBatchInput({
      endpointId: 'e',
      source: '/in.jsonl',
      outDir: '/out',
      retryOf: { runId: 'r', attempt: 2 },
    } as Parameters<typeof inputs.parseBatchInput>[0]);
    expect(rerun.retryOf).toBeUndefined();
  });

  it('validates a pipeline definition on the daemon: defaults, endpoints, issues with stage, field and position', async () => {
    const stages = [
      { name: 'a', endpoint: 'ep-a', input: "{ 'n': $.input.n }" },
      { name: 'b', endpoint: 'ep-b', input: "{ 'n': $.a.output.n }" },
    ];
    const ok = await inputs.parsePipelineInput({
      definition: { name: 'p', stages },
      source: '/in.jsonl',
      outDir: '/out',
    });
    expect(ok.endpoints).toEqual(['ep-a', 'ep-b']);
    expect(ok.options).toEqual(PipelineRunOptions.parse({}));
    expect(ok.definition.stages[1]).toMatchObject({ name: 'b', input: "{ 'n': $.a.output.n }" });
    const given = await inputs.parsePipelineInput({
      definition: { name: 'p', stages },
      endpoints: ['id-a', 'id-b'],
      source: 's3://bucket/in.jsonl',
      outDir: '/out',
    });
    expect(given.endpoints).toEqual(['id-a', 'id-b']);
    // A rerun's reference is the library's (`sluice.pipeline.rerun`): a caller's is dropped.
    const rerun = await inputs.parsePipelineInput({
      definition: { name: 'p', stages },
      source: '/in.jsonl',
      outDir: '/out',
      rerunOf: { runId: 'r', attempt: 2 },
    } as Parameters<typeof inputs.parsePipelineInput>[0]);
    expect(rerun.rerunOf).toBeUndefined();

    const bad = await failureOf(
      inputs.parsePipelineInput({
        definition: { name: 'p', stages: [stages[0]!, { ...stages[1]!, when: '$.a.status = ' }] },
        source: '/in.jsonl',
        outDir: '/out',
      }),
    );
    expect(bad).toMatchObject({ type: FailureType.INVALID_INPUT, nonRetryable: true });
    expect(bad.message).toMatch(/^invalid pipeline definition: stage "b", field "when", position \d+: /);
    const order = await failureOf(
      inputs.parsePipelineInput({
        definition: { name: 'p', stages: [{ ...stages[0]!, input: "{ 'n': $.b.output.n }" }, stages[1]!] },
        source: '/in.jsonl',
        outDir: '/out',
      }),
    );
    expect(order.message).toMatch(/stage "a", field "input", position \d+: reads stage "b", which comes after/);
    const count = await failureOf(
      inputs.parsePipelineInput({ definition: { name: 'p', stages }, endpoints: ['x'], source: '/in', outDir: '/o' }),
    );
    expect(count.message).toBe('invalid pipeline input: endpoints: one per stage (2), got 1');
    const relative = await failureOf(
      inputs.parsePipelineInput({ definition: { name: 'p', stages }, source: '/in.jsonl', outDir: 'out' }),
    );
    expect(relative.message).toMatch(/^invalid pipeline input: outDir: must be an absolute path/);
  });
});
