/**
 * A batch survives its daemon SIGKILLed twice and its platform SIGKILLed once: every input ends
 * with exactly one outcome, and the platform (not sluice) counts one remote job per input.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchClient } from '../../client/batch';
import { daemonEnv, temporalEnv } from '../helpers/orchestrator';
import { call, eventually, freePort } from '../helpers/platform';
import { inputFile, resultsOf } from './helpers';

const bin = join(__dirname, '..', '..', 'bin', 'sluice.cjs');

describe('a batch through crashes', () => {
  let env: Awaited<ReturnType<typeof temporalEnv>>;
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-batch-crash-'));
  const resultsDir = join(dataDir, 'results');
  const children = new Set<ChildProcess>();
  let port: number;
  const key = 'crash-key';

  /** Starts `sluice <args>` and waits for `ready` in its output. */
  const start = async (
    args: string[],
    extra: Record<string, string>,
    ready: RegExp,
  ): Promise<{ child: ChildProcess; out: () => string }> => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, SLUICE_LOG_LEVEL: 'warn', SLUICE_LOG_PRETTY: '0', ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await eventually(() => ready.test(out), 60_000);
    return { child, out: () => out };
  };
  const kill = async (child: ChildProcess): Promise<void> => {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  };
  const platform = () =>
    start(['platform', '--port', String(port), '--data-dir', dataDir, '--api-key', key], {}, /endpoints\s/);
  const daemon = async () => {
    const e = {
      ...daemonEnv({ url: `http://127.0.0.1:${port}`, apiKey: key }, env.address, resultsDir),
      SLUICE_TASK_QUEUE: 'batch-crash',
      SLUICE_DAEMON_PORT: String(await freePort()),
    };
    return start(['worker'], e, /sluice worker running/);
  };

  beforeAll(async () => {
    env = await temporalEnv();
    port = await freePort();
  });
  afterAll(async () => {
    for (const c of children) {
      // The platform stops its worker pods on SIGTERM; daemons just go.
      c.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 100));
    }
    await eventually(() => children.size === 0, 20_000).catch(() => [...children].forEach((c) => c.kill('SIGKILL')));
    await env.teardown();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('daemon SIGKILLed twice and the platform once: every index exactly once, one remote job per input', async () => {
    let p = await platform();
    const sleep = /sleep=(\S+)/.exec(p.out())![1]!;
    // Enough workers that the batch moves along between the crashes.
    let d = await daemon();
    const n = 240;
    const { file, dir } = inputFile(Array.from({ length: n }, (_, i) => ({ ms: 150, i })));
    const batch = new BatchClient({ client: env.client, taskQueue: 'batch-crash', resultsDir });
    const id = await batch.start({
      endpointId: sleep,
      source: file,
      outDir: join(dir, 'out'),
      options: { concurrency: 12, webhookFallbackMs: 1000, retry: { maxAttempts: 6, initialBackoffMs: 200 } },
    });
    const doneAtLeast = (k: number) => eventually(async () => (await batch.state(id)).counts.done >= k, 90_000);

    await doneAtLeast(30);
    await kill(d.child);
    d = await daemon();
    await doneAtLeast(90);
    await kill(p.child);
    p = await platform();
    await doneAtLeast(150);
    await kill(d.child);
    d = await daemon();

    const summary = await batch.result(id);
    const results = resultsOf(
      join(dir, 'out'),
      Array.from({ length: n }, (_, i) => i),
    );
    expect(summary.counts.byStatus).toEqual({ COMPLETED: n });
    for (const r of results.values()) expect(r.remoteJobIds, `index ${r.index}`).toHaveLength(1);
    // Counted by the platform: every job it holds for the endpoint, each input's exactly once.
    const ids = new Set([...results.values()].map((r) => r.remoteJobIds[0]!));
    expect(ids.size).toBe(n);
    for (const jobId of [...ids].slice(0, 20))
      expect((await call(`http://127.0.0.1:${port}`, 'GET', `/v2/${sleep}/status/${jobId}`, { key })).status).toBe(200);
    // The platform's own count of the jobs it holds for the endpoint: one per input, all completed.
    const health = await call(`http://127.0.0.1:${port}`, 'GET', `/v2/${sleep}/health`, { key });
    expect(health.body.jobs).toMatchObject({ completed: n, failed: 0, inQueue: 0, inProgress: 0 });
  }, 240_000);
});
