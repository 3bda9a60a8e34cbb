/**
 * A user's own workflows (examples/workflows) on the real stack: Temporal, the platform, sluice's
 * daemon on its task queue and the user's worker, a process of its own on its own queue. runBatch
 * twice: the second batch's results are the aggregate of the first's; cancelling the user's
 * workflow cancels the child batch and its remote jobs. runPipeline: two stages, every input's line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopProcessGroup } from '../../common/process';
import { failureMessage, failureType } from '../../client/failures';
import { FailureType, batchWorkflowId, childOfWorkflowId } from '../../contracts/names';
import type { TwoBatchesResult } from '../../examples/workflows/two-batches';
import type { PipelineState } from '../../contracts';
import { inputFile, readJsonl } from '../batch/helpers';
import { pipelineResults } from './helpers';
import { orchestratorStack } from '../helpers/orchestrator';
import { eventually } from '../helpers/platform';
import { tsxCommand } from '../helpers/tsx-command';

const USER_QUEUE = 'user-workflows';

describe("a user's own workflows composing sluice's", () => {
  let s: Awaited<ReturnType<typeof orchestratorStack>>;
  let worker: ChildProcess;
  let work: string;

  beforeAll(async () => {
    s = await orchestratorStack();
    work = mkdtempSync(join(tmpdir(), 'sluice-own-workflow-'));
    const [node, ...args] = tsxCommand(join(__dirname, '..', '..', 'examples', 'workflows', 'worker.ts'));
    worker = spawn(node!, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: s.env.address,
        TASK_QUEUE: USER_QUEUE,
        SLUICE_RESULTS_DIR: s.resultsDir,
      },
    });
    let out = '';
    worker.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    worker.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const tick = () => (/worker running/.test(out) ? resolve() : setTimeout(tick, 100));
      worker.once('exit', (code) => reject(new Error(`the user's worker exited (${code}):\n${out}`)));
      tick();
    });
  }, 180_000);

  afterAll(async () => {
    if (worker) await stopProcessGroup(worker, 5000);
    await s?.dispose();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('runs a batch, aggregates its results in its own activity, then runs a second batch on the aggregate', async () => {
    const ns = Array.from({ length: 20 }, (_, i) => i + 1);
    const { file } = inputFile(ns.map((n) => ({ input: { n } })));
    const workflowId = `two-batches-${Date.now()}`;
    const result = await s.env.client.workflow.execute('twoBatches', {
      taskQueue: USER_QUEUE,
      workflowId,
      args: [{ endpointId: s.platform.examples.echo!.id, source: file, workDir: work, groups: 3 }],
      workflowExecutionTimeout: '3 minutes',
    });
    const r = result as TwoBatchesResult;
    expect(r.first.counts.byStatus).toEqual({ COMPLETED: 20 });
    expect(r.aggregated).toBe(3);
    expect(r.second.counts.byStatus).toEqual({ COMPLETED: 3 });
    // The second batch echoed the aggregate: per group n % 3, the sum and count of the first's inputs.
    const outputs = readJsonl<{ index: number; output: unknown }>(join(work, 'second', 'results.jsonl'))
      .sort((a, b) => a.index - b.index)
      .map((l) => l.output);
    const expected = [0, 1, 2].map((group) => {
      const members = ns.filter((n) => n % 3 === group);
      return { group, total: members.reduce((a, b) => a + b, 0), count: members.length };
    });
    expect(outputs).toEqual(expected);
    // The children ran on sluice's task queue under ids derived from the user's workflow id and the keys.
    for (const key of ['first', 'second']) {
      const id = childOfWorkflowId('batch', workflowId, key);
      expect(id).toBe(batchWorkflowId(`${workflowId}/${key}`));
      const d = await s.env.client.workflow.getHandle(id).describe();
      expect(d.taskQueue).toBe(s.config.SLUICE_TASK_QUEUE);
      expect(d.raw.workflowExecutionInfo?.parentExecution?.workflowId).toBe(workflowId);
    }
  }, 180_000);

  it('a bad input fails the call with INVALID_INPUT before any child starts', async () => {
    const workflowId = `two-batches-bad-${Date.now()}`;
    const run = s.env.client.workflow.execute('twoBatches', {
      taskQueue: USER_QUEUE,
      workflowId,
      args: [{ endpointId: s.platform.examples.echo!.id, source: 'in.jsonl', workDir: work, groups: 3 }],
    });
    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(failureType(err)).toBe(FailureType.INVALID_INPUT);
    expect(failureMessage(err)).toMatch(/source: must be an absolute path or an s3:\/\/ URL/);
    await expect(
      s.env.client.workflow.getHandle(childOfWorkflowId('batch', workflowId, 'first')).describe(),
    ).rejects.toThrow();
  });

  it('cancelling the user workflow cancels its child batch and the remote jobs in flight', async () => {
    const sleep = s.platform.examples.sleep!.id;
    const { file } = inputFile(Array.from({ length: 4 }, () => ({ input: { ms: 120_000 } })));
    const workflowId = `two-batches-cancel-${Date.now()}`;
    const handle = await s.env.client.workflow.start('twoBatches', {
      taskQueue: USER_QUEUE,
      workflowId,
      args: [{ endpointId: sleep, source: file, workDir: work, groups: 2 }],
    });
    const jobs = () => s.platform.engine.jobs.ofEndpoint(sleep);
    await eventually(() => jobs().some((j) => j.status === 'IN_PROGRESS'), 90_000);
    await handle.cancel();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    const child = s.env.client.workflow.getHandle(childOfWorkflowId('batch', workflowId, 'first'));
    expect((await child.describe()).status.name).toBe('CANCELLED');
    // Every remote job the batch submitted was cancelled on the service (none runs on for two minutes).
    await eventually(() => jobs().every((j) => j.status === 'CANCELLED'), 30_000);
    expect(jobs().length).toBeGreaterThan(0);
  }, 180_000);

  it('runs a two-stage pipeline with runPipeline and resolves with its final state', async () => {
    const N = 12;
    const { file } = inputFile(Array.from({ length: N }, (_, n) => ({ n })));
    const workflowId = `two-stages-${Date.now()}`;
    const outDir = join(work, 'pipeline');
    const echo = s.platform.examples.echo!.id;
    const before = s.platform.engine.jobs.ofEndpoint(echo).length;
    const state = (await s.env.client.workflow.execute('twoStages', {
      taskQueue: USER_QUEUE,
      workflowId,
      args: [{ endpointId: echo, source: file, outDir }],
      workflowExecutionTimeout: '3 minutes',
    })) as PipelineState;
    expect(state).toMatchObject({ phase: 'done', outDir, counts: { done: N, byStatus: { COMPLETED: N } } });
    expect(state.stages.map((st) => st.name)).toEqual(['first', 'second']);
    const results = pipelineResults(outDir, N);
    for (let n = 0; n < N; n++)
      expect(results.get(n)).toMatchObject({ status: 'COMPLETED', output: { n, result: 2 * n + 1 } });
    // One job per input per stage, on the platform.
    expect(s.platform.engine.jobs.ofEndpoint(echo).length - before).toBe(2 * N);
    const child = await s.env.client.workflow.getHandle(childOfWorkflowId('pipeline', workflowId, 'double')).describe();
    expect(child.taskQueue).toBe(s.config.SLUICE_TASK_QUEUE);
    expect(child.raw.workflowExecutionInfo?.parentExecution?.workflowId).toBe(workflowId);
  }, 180_000);
});
