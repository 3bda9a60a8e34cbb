import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobClient } from '../../client/job';
import { call, eventually, freePort } from '../helpers/platform';
import { daemonEnv, orchestratorStack } from '../helpers/orchestrator';

type Stack = Awaited<ReturnType<typeof orchestratorStack>>;
const bin = join(__dirname, '..', '..', 'bin', 'sluice.cjs');

describe('the worker daemon as its own process', () => {
  let s: Stack;
  let env: Record<string, string>;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    s = await orchestratorStack({ platform: { webhook: { retryDelayMs: 500 } } });
    env = {
      ...daemonEnv(s.platform, s.env.address, s.resultsDir),
      SLUICE_TASK_QUEUE: 'crash-test',
      SLUICE_DAEMON_PORT: String(await freePort()),
      SLUICE_LOG_LEVEL: 'warn',
      SLUICE_LOG_PRETTY: '0',
    };
  });
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await s.dispose();
  });

  const startChild = async (): Promise<ChildProcess> => {
    const child = spawn(process.execPath, [bin, 'worker'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await eventually(() => out.includes('sluice worker running'), 30_000);
    return child;
  };

  it('SIGKILL mid-job, then restart: the workflow completes and the remote job ran once', async () => {
    const ep = s.platform.examples.sleep!.id;
    const before = s.platform.engine.jobs.ofEndpoint(ep).length;
    const first = await startChild();
    const sluice = new JobClient({ client: s.env.client, taskQueue: 'crash-test', resultsDir: s.resultsDir });
    const id = await sluice.start({ endpointId: ep, input: { ms: 4000 } });
    await eventually(() => s.platform.engine.jobs.ofEndpoint(ep).some((j) => j.status === 'IN_PROGRESS'), 20_000);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    await startChild();
    const r = await sluice.result(id);
    expect(r.status).toBe('COMPLETED');
    expect(r.output).toEqual({ slept: 4000 });
    expect(r.attempts).toHaveLength(1);
    const jobs = s.platform.engine.jobs.ofEndpoint(ep);
    expect(jobs.length - before).toBe(1);
    const health = await call(s.platform.url, 'GET', `/v2/${ep}/health`);
    expect(health.body.jobs.inQueue + health.body.jobs.inProgress).toBe(0);
  });

  it('bad configuration stops start-up with a message naming the variable', async () => {
    // The full table is in test/worker/config.unit.test.ts; here two cases go through the real command.
    const cases: [Record<string, string>, RegExp][] = [
      [{ SLUICE_QUEUE_URL: '' }, /SLUICE_QUEUE_URL: is required/],
      [{ SLUICE_DAEMON_PORT: '70000' }, /SLUICE_DAEMON_PORT: must be a port number/],
    ];
    for (const [override, message] of cases) {
      const child = spawn(process.execPath, [bin, 'worker'], {
        env: { ...process.env, ...env, ...override },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const code = await new Promise<number | null>((r) => child.once('exit', r));
      expect(code, JSON.stringify(override)).toBe(2);
      expect(err).toMatch(message);
    }
  });
});
