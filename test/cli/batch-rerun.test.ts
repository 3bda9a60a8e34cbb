/** `sluice batch rerun` as a real process on a real stack: watched and detached runs, merged results, refusals and their exit codes, --json; its former name `retry-failed` still works. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchClient } from '../../client/batch';
import { inputFile, mixedEndpoint, platformJobs, type Stack } from '../batch/helpers';
import { orchestratorStack } from '../helpers/orchestrator';
import { stackEnv, sluice as runSluice } from './run-sluice';

describe('sluice batch rerun', () => {
  let s: Stack;
  let env: NodeJS.ProcessEnv;
  let cwd: string;
  let ep: string;
  let batch: BatchClient;
  beforeAll(async () => {
    s = await orchestratorStack();
    cwd = mkdtempSync(join(tmpdir(), 'sluice-batch-rerun-cli-'));
    env = stackEnv(s);
    ep = mixedEndpoint(s, 'cli-retry', 4);
    batch = new BatchClient({ client: s.env.client, resultsDir: s.resultsDir });
  });
  afterAll(async () => {
    await s?.dispose();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  const sluice = (...args: string[]) => runSluice(args, { env, cwd });
  const json = <T = Record<string, unknown>>(out: string): T => JSON.parse(out.trim().split('\n').at(-1)!) as T;

  it("watched: re-runs the failed inputs and exits with the batch's code over every input; --detach --json; then nothing is left: exit 1", async () => {
    const lines = Array.from({ length: 10 }, (_, i) =>
      i === 4 || i === 7
        ? { input: { kind: 'flaky', failTimes: i === 4 ? 1 : 2, counterFile: join(cwd, `flaky-${i}`) } }
        : { kind: 'echo', i },
    );
    const { file } = inputFile(lines);
    const first = await sluice(
      'batch',
      'start',
      file,
      '--endpoint',
      'cli-retry',
      '--id',
      'cli-rf',
      '--max-attempts',
      '1',
      '--interval',
      '0.5',
    );
    expect(first.code, first.stderr).toBe(1);
    expect(first.stdout).toMatch(/^outcomes\s+COMPLETED 8 {2}FAILED 2$/m);

    const watched = await sluice('batch', 'rerun', 'cli-rf', '--interval', '0.5');
    expect(watched.code, watched.stderr + watched.stdout).toBe(1);
    const outDir = join(cwd, '.data', 'batches', 'cli-rf');
    expect(watched.stdout).toContain(`re-running 2 inputs of batch/cli-rf (attempt 2); results in ${outDir}`);
    expect(watched.stdout).toMatch(
      /^ {2}\d\d:\d\d:\d\d {2}10\/10 done \(100%\) {2}1 failed {2}0 in flight .* {2}done$/m,
    );
    // The final table counts every input.
    expect(watched.stdout).toMatch(/^outcomes\s+COMPLETED 9 {2}FAILED 1$/m);
    expect(watched.stdout).toMatch(/^done\s+10\/10 \(100%\)$/m);

    const detached = await sluice('batch', 'rerun', 'batch/cli-rf', '--detach', '--json');
    expect(detached.code, detached.stderr).toBe(0);
    const started = JSON.parse(detached.stdout) as { runId: string; previousRunId: string };
    expect(started).toMatchObject({ workflowId: 'batch/cli-rf', attempt: 3, inputs: 1, outDir });
    expect(started.previousRunId).not.toBe(started.runId);
    await batch.result('cli-rf');
    // The platform ran one job for that run: index 7's input.
    const rerun = platformJobs(s, ep).filter((j) => j.idempotencyKey?.startsWith(`batch/cli-rf/${started.runId}#`));
    expect(rerun.map((j) => j.input)).toEqual([lines[7]!.input]);

    const [status, results, none, noneJson] = await Promise.all([
      sluice('batch', 'status', 'cli-rf', '--json'),
      sluice('batch', 'results', 'cli-rf'),
      sluice('batch', 'rerun', 'cli-rf'),
      sluice('batch', 'retry-failed', 'cli-rf', '--json'), // the former name, hidden: the same command
    ]);
    expect(status.code).toBe(0);
    expect(json(status.stdout)).toMatchObject({
      workflowStatus: 'COMPLETED',
      state: {
        counts: { total: 10, done: 10, byStatus: { COMPLETED: 10 } },
        retry: { attempt: 3, inputs: 1, byStatus: { COMPLETED: 1 } },
      },
    });
    expect(results.code).toBe(0);
    const indices = results.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { index: number }).index)
      .sort((a, b) => a - b);
    expect(indices).toEqual(lines.map((_, i) => i));
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/batch\/cli-rf has no failed inputs to re-run/);
    expect(noneJson.code).toBe(1);
    expect(JSON.parse(noneJson.stdout)).toMatchObject({
      workflowId: 'batch/cli-rf',
      rerun: false,
      code: 'NOTHING_TO_RERUN',
    });
  }, 180_000);

  it('refuses a running batch (exit 4) and an unknown one (exit 2), starting nothing', async () => {
    const { file } = inputFile(Array.from({ length: 4 }, () => ({ kind: 'sleep', ms: 10_000 })));
    const started = await sluice(
      'batch',
      'start',
      file,
      '--endpoint',
      ep,
      '--id',
      'cli-rf-long',
      '--concurrency',
      '1',
      '--detach',
    );
    expect(started.code, started.stderr).toBe(0);
    const [running, runningJson, unknown] = await Promise.all([
      sluice('batch', 'rerun', 'cli-rf-long'),
      sluice('batch', 'rerun', 'cli-rf-long', '--json'),
      sluice('batch', 'rerun', 'cli-rf-nope'),
    ]);
    expect(running.code, running.stderr).toBe(4);
    expect(running.stderr).toMatch(
      /batch\/cli-rf-long is still running; rerun re-runs failed inputs once it has ended/,
    );
    expect(runningJson.code).toBe(4);
    expect(JSON.parse(runningJson.stdout)).toMatchObject({ rerun: false, code: 'BATCH_RUNNING' });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no batch batch\/cli-rf-nope/);
    expect((await batch.view('cli-rf-long')).state?.retry).toBeUndefined();
    await batch.cancel('cli-rf-long');
    await batch.result('cli-rf-long').catch(() => undefined);
  });
});
