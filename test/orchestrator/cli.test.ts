import { execFile } from 'node:child_process';
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
    expect(out).toMatchObject({ status: 'COMPLETED', output: { cli: true }, workflowId: expect.stringMatching(/^job\//) });
  });

  it('run of a failing job exits 1 and shows the error', async () => {
    const r = await sluice('run', '--endpoint', s.platform.examples.fail!.id, '--input', '{"message":"nope 7"}', '--max-attempts', '1');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/status\s+FAILED/);
    expect(r.stdout).toMatch(/nope 7/);
  });

  it('detach, result while running (exit 4), status, cancel (exit 3)', async () => {
    const started = await sluice('run', '--endpoint', s.platform.examples.sleep!.id, '--input', '{"ms":60000}', '--detach', '--json');
    expect(started.code).toBe(0);
    const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
    const pending = await sluice('result', workflowId, '--json');
    expect(pending.code).toBe(4);
    expect(JSON.parse(pending.stdout)).toEqual({ workflowId, status: 'RUNNING' });
    const status = await sluice('status', workflowId, '--json');
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ workflowId, workflowStatus: 'RUNNING', state: { phase: 'waiting' } });
    const cancelled = await sluice('cancel', workflowId, '--json');
    expect(cancelled.code).toBe(3);
    expect(JSON.parse(cancelled.stdout)).toEqual({ workflowId, status: 'CANCELLED' });
  });

  it('bad input: a clear message and exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['run', '--endpoint', 'x', '--input', '{not json'], /--input is not valid JSON/],
      [['run', '--input', '{}'], /--endpoint ID\|NAME is required/],
      [['run', '--endpoint', 'x', '--input', '{}', '--webhook', '--poll'], /exclude each other/],
      [['status', 'job/does-not-exist'], /no job job\/does-not-exist/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['run', '--endpoint', 'x', '--input', '{}', '--bogus'], /Unknown option '--bogus'/],
    ];
    for (const [args, message] of cases) {
      const r = await sluice(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});
