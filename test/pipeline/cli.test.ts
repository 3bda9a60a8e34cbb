/** `sluice pipeline` as a real process on a real stack: start by endpoint name, progress per stage, status, results, list, exit codes, a bad definition. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputFile, mixedEndpoint, readJsonl, type Stack } from '../batch/helpers';
import { orchestratorStack } from '../helpers/orchestrator';
import { sluice as runSluice, stackEnv } from '../cli/run-sluice';

describe('sluice pipeline', () => {
  let s: Stack;
  let env: NodeJS.ProcessEnv;
  let cwd: string;
  beforeAll(async () => {
    s = await orchestratorStack();
    cwd = mkdtempSync(join(tmpdir(), 'sluice-pipeline-cli-'));
    env = stackEnv(s);
    mixedEndpoint(s, 'cli-pipe', 2);
  });
  afterAll(async () => {
    await s?.dispose();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });
  const sluice = (...args: string[]) => runSluice(args, { env, cwd });

  it('start by endpoint name, a line per stage, status, results --failed and --stage, list; exit 1 with a failed input', async () => {
    const def = join(cwd, 'two.yaml');
    writeFileSync(
      def,
      [
        'name: two',
        'stages:',
        '  - name: first',
        '    endpoint: cli-pipe',
        `    input: "{ 'kind': 'echo', 'n': $.input.n }"`,
        '  - name: second',
        '    endpoint: cli-pipe',
        `    input: "{ 'kind': $.input.n = 3 ? 'fail' : 'echo', 'message': 'no good', 'twice': $.first.output.n * 2 }"`,
        '    retry: { maxAttempts: 1 }',
        `output: "$.second.output.twice"`,
      ].join('\n'),
    );
    const { file, dir } = inputFile(Array.from({ length: 6 }, (_, n) => ({ n })));
    const out = join(dir, 'out');
    const r = await sluice('pipeline', 'start', def, file, '--id', 'cli-two', '--out', out, '--interval', '0.5');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('started pipeline/cli-two (two: first → second)');
    expect(r.stdout).toMatch(/^ {2}first +\d+ inputs here/m);
    expect(r.stdout).toMatch(/^ {2}second +\d+ inputs here/m);
    expect(readJsonl(join(out, 'results.jsonl'))).toHaveLength(6);

    const st = await sluice('pipeline', 'status', 'cli-two', '--json');
    expect(st.code).toBe(1);
    const view = JSON.parse(st.stdout) as { workflowStatus: string; state: { counts: { byStatus: object } } };
    expect(view).toMatchObject({
      workflowStatus: 'COMPLETED',
      state: { counts: { byStatus: { COMPLETED: 5, FAILED: 1 } } },
    });

    const failed = await sluice('pipeline', 'results', 'pipeline/cli-two', '--failed');
    expect(
      failed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { index: number; stage: string }),
    ).toEqual([expect.objectContaining({ index: 3, stage: 'second', status: 'FAILED' })]);
    const atFirst = await sluice('pipeline', 'results', 'cli-two', '--stage', 'first');
    expect(atFirst.stdout.trim()).toBe('');
    const noStage = await sluice('pipeline', 'results', 'cli-two', '--stage', 'nope');
    expect(noStage.code).toBe(2);
    expect(noStage.stderr).toMatch(/no stage nope/);

    const list = await sluice('pipeline', 'list', '--json');
    expect(JSON.parse(list.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ pipelineId: 'cli-two', status: 'COMPLETED' })]),
    );
    const missing = await sluice('pipeline', 'status', 'nope');
    expect(missing.code).toBe(2);

    // rerun: input 3 runs again from stage second (it fails again: exit 1), one line per input still.
    const rerun = await sluice('pipeline', 'rerun', 'cli-two', '--interval', '0.5');
    expect(rerun.code, rerun.stderr).toBe(1);
    expect(rerun.stdout).toContain('rerun of pipeline/cli-two started (attempt 2, 1 failed inputs');
    expect(readJsonl(join(out, 'results.jsonl'))).toHaveLength(6);
    expect(readJsonl(join(out, 'attempts', '1', 'results.jsonl'))).toHaveLength(6);
    const again = await sluice('pipeline', 'retry-failed', 'cli-two', '--detach', '--json');
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ workflowId: 'pipeline/cli-two', attempt: 3, inputs: 1 });
    expect((await sluice('pipeline', 'watch', 'cli-two', '--interval', '0.5')).code).toBe(1);
    expect(readJsonl(join(out, 'results.jsonl'))).toHaveLength(6);
    expect(readJsonl(join(out, 'attempts', '2', 'dead-letter.jsonl'))).toHaveLength(1);
    expect((await sluice('pipeline', 'rerun', 'nope')).code).toBe(2);
  });

  it('a bad definition is refused before anything starts: every error with its stage and place, exit 2', async () => {
    const def = join(cwd, 'bad.yaml');
    writeFileSync(
      def,
      ['name: bad', 'stages:', '  - name: one', '    endpoint: cli-pipe', '    input: "{ \'a\': $.later }"'].join('\n'),
    );
    const { file } = inputFile([{ n: 1 }]);
    const r = await sluice('pipeline', 'start', def, file, '--detach');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/stage "one", field "input", line 5 col \d+: .*later/);
  });
});
