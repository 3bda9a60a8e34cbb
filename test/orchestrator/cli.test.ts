import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orchestratorStack } from '../helpers/orchestrator';

type Stack = Awaited<ReturnType<typeof orchestratorStack>>;
const bin = join(__dirname, '..', '..', 'bin', 'sluice.cjs');

describe('the sluice CLI: run, status, cancel, result (exit codes and --json)', () => {
  let s: Stack;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    s = await orchestratorStack();
    env = {
      ...process.env,
      TEMPORAL_ADDRESS: s.env.address,
      SLUICE_QUEUE_URL: `${s.platform.url}/v2`,
      SLUICE_GRAPHQL_URL: `${s.platform.url}/graphql`,
      SLUICE_API_KEY: s.platform.apiKey,
      SLUICE_RESULTS_DIR: s.resultsDir,
      SLUICE_LOG_LEVEL: 'warn',
    };
  });
  afterAll(() => s.dispose());

  const sluice = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [bin, ...args], { env, cwd: s.resultsDir, timeout: 60_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      });
    });

  it('run --json by endpoint name (resolved through GraphQL): exit 0 and the result as JSON', async () => {
    const r = await sluice('run', '--endpoint', 'echo', '--input', '{"cli":true}', '--json');
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(out).toMatchObject({
      status: 'COMPLETED',
      output: { cli: true },
      workflowId: expect.stringMatching(/^job\//),
    });
  });

  it('run of a failing job exits 1 and shows the error', async () => {
    const r = await sluice(
      'run',
      '--endpoint',
      s.platform.examples.fail!.id,
      '--input',
      '{"message":"nope 7"}',
      '--max-attempts',
      '1',
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/status\s+FAILED/);
    expect(r.stdout).toMatch(/nope 7/);
  });

  it('detach; result and status of a running job both exit 4; cancel exits 0 once carried out; then both report CANCELLED (exit 3)', async () => {
    const started = await sluice(
      'run',
      '--endpoint',
      s.platform.examples.sleep!.id,
      '--input',
      '{"ms":60000}',
      '--detach',
      '--json',
    );
    expect(started.code).toBe(0);
    const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
    const pending = await sluice('result', workflowId, '--json');
    expect(pending.code).toBe(4);
    expect(JSON.parse(pending.stdout)).toEqual({ workflowId, status: 'RUNNING' });
    const status = await sluice('status', workflowId, '--json');
    expect(status.code).toBe(4);
    expect(JSON.parse(status.stdout)).toMatchObject({
      workflowId,
      workflowStatus: 'RUNNING',
      state: { phase: 'waiting' },
    });
    const cancelled = await sluice('cancel', workflowId, '--json');
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toEqual({ workflowId, status: 'CANCELLED' });
    const after = await sluice('result', workflowId, '--json');
    expect(after.code).toBe(3);
    expect(JSON.parse(after.stdout)).toMatchObject({ workflowId, status: 'CANCELLED' });
    expect((await sluice('status', workflowId)).code).toBe(3);
    const again = await sluice('cancel', workflowId);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already ended CANCELLED; nothing to cancel/);
  });

  it('--id: refused while that job runs (exit 2); after it ended, a new run with its own input and result', async () => {
    const id = `cli-reuse-${Date.now()}`;
    const first = await sluice('run', '--endpoint', 'echo', '--input', '{"n":1}', '--id', id, '--json');
    expect(JSON.parse(first.stdout.trim().split('\n').at(-1)!)).toMatchObject({
      status: 'COMPLETED',
      output: { n: 1 },
    });
    const second = await sluice('run', '--endpoint', 'echo', '--input', '{"n":2}', '--id', id, '--json');
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout.trim().split('\n').at(-1)!)).toMatchObject({
      status: 'COMPLETED',
      output: { n: 2 },
    });
    const busy = `cli-busy-${Date.now()}`;
    expect((await sluice('run', '--endpoint', 'sleep', '--input', '{"ms":60000}', '--id', busy, '--detach')).code).toBe(
      0,
    );
    const refused = await sluice('run', '--endpoint', 'sleep', '--input', '{"ms":1}', '--id', busy);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/job job\/cli-busy-\d+ is still running/);
    await sluice('cancel', busy);
  });

  it('an unknown endpoint is refused before a workflow starts, naming the endpoints that exist (exit 2)', async () => {
    const r = await sluice('run', '--endpoint', 'nope', '--input', '{}', '--id', 'unknown-endpoint');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/endpoint nope not found; the endpoints that exist: .*echo \(/);
    expect((await sluice('status', 'job/unknown-endpoint')).stderr).toMatch(/no job job\/unknown-endpoint/);
  });

  it('a stream job: chunks never follow the final line; result says how many chunks and where; --chunks prints them', async () => {
    const r = await sluice(
      'run',
      '--endpoint',
      'stream',
      '--input',
      '{"chunks":6,"delayMs":100}',
      '--stream',
      '--id',
      'cli-stream',
    );
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const chunkLines = lines.flatMap((l, i) => (/^\s+chunk /.test(l) ? [i] : []));
    expect(chunkLines).toHaveLength(6);
    const doneLine = lines.findIndex((l) => /done: COMPLETED/.test(l));
    expect(doneLine).toBeGreaterThan(Math.max(...chunkLines));
    const result = await sluice('result', 'job/cli-stream');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/stream\s+6 chunks in \/.*\.jsonl/);
    expect(result.stdout).toContain('sluice result job/cli-stream --chunks');
    const file = /6 chunks in (\S+\.jsonl)/.exec(result.stdout)![1]!;
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(6);
    const json = JSON.parse((await sluice('result', 'job/cli-stream', '--json')).stdout);
    expect(json).toMatchObject({ streamChunks: 6, streamFiles: [file] });
    const chunks = await sluice('result', 'cli-stream', '--chunks');
    expect(chunks.code).toBe(0);
    expect(
      chunks.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([0, 1, 2, 3, 4, 5].map((i) => ({ index: i, text: `chunk ${i}` })));
  });

  it('names the phases plainly: a failed attempt shows "retrying after FAILED", not "waiting FAILED"', async () => {
    const input = JSON.stringify({ counterFile: join(s.resultsDir, 'cli-flaky.count'), failTimes: 1 });
    const r = await sluice('run', '--endpoint', 'flaky', '--input', input, '--max-attempts', '2');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/retrying after FAILED/);
    expect(r.stdout).not.toMatch(/waiting FAILED|backing-off/);
    expect(r.stdout).toMatch(/done: COMPLETED/);
  });

  it('bad input: a clear message and exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['run', '--endpoint', 'x', '--input', '{not json'], /--input is not valid JSON/],
      [['run', '--input', '{}'], /--endpoint ID\|NAME is required/],
      [['run', '--endpoint', 'x', '--input', '{}', '--webhook', '--poll'], /exclude each other/],
      [['status', 'job/does-not-exist'], /no job job\/does-not-exist/],
      [['frobnicate'], /unknown command 'frobnicate'/],
      [['run', '--endpoint', 'x', '--input', '{}', '--bogus'], /unknown option '--bogus'/],
      [
        ['run', '--endpoint', 'x', '--input', '{}', '--max-attempts', 'many'],
        /--max-attempts <n>' argument 'many' is invalid. must be a positive integer/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await sluice(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});
