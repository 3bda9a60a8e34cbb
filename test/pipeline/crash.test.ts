/**
 * A pipeline survives its daemon SIGKILLed twice and its platform SIGKILLed once: every input ends
 * with exactly one result line, and the platform (not sluice) counts exactly one remote job per
 * input per stage element.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineClient } from '../../client/pipeline';
import { daemonEnv, temporalEnv } from '../helpers/orchestrator';
import { call, eventually, freePort } from '../helpers/platform';
import { inputFile } from '../batch/helpers';
import { pipelineResults } from './helpers';

const bin = join(__dirname, '..', '..', 'bin', 'sluice.cjs');

describe('a pipeline through crashes', () => {
  let env: Awaited<ReturnType<typeof temporalEnv>>;
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-pipeline-crash-'));
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
      SLUICE_TASK_QUEUE: 'pipeline-crash',
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

  it('daemon SIGKILLed twice and the platform once: every input exactly once, one remote job per input per stage element', async () => {
    let p = await platform();
    const sleep = /sleep=(\S+)/.exec(p.out())![1]!;
    let d = await daemon();
    const n = 60;
    const { file, dir } = inputFile(Array.from({ length: n }, (_, i) => ({ i })));
    const outDir = join(dir, 'out');
    const pipeline = new PipelineClient({ client: env.client, taskQueue: 'pipeline-crash', resultsDir });
    const policy = { retry: { maxAttempts: 6, initialBackoffMs: 200 } };
    const id = await pipeline.start({
      definition: {
        name: 'crash',
        maxInFlight: 20,
        stages: [
          {
            name: 'pair',
            endpoint: sleep,
            each: '[1, 2]',
            input: "{ 'ms': 100, 'i': $.input.i, 'e': $index }",
            concurrency: 8,
            ...policy,
          },
          { name: 'after', endpoint: sleep, input: "{ 'ms': 100, 'i': $.input.i }", concurrency: 8, ...policy },
        ],
      },
      source: file,
      outDir,
      options: { stepsPerRun: 20 },
    });
    const doneAtLeast = (k: number) =>
      eventually(async () => ((await pipeline.state(id).catch(() => undefined))?.counts.done ?? 0) >= k, 240_000);
    await doneAtLeast(8);
    await kill(d.child);
    d = await daemon();
    await doneAtLeast(25);
    await kill(p.child);
    p = await platform();
    await doneAtLeast(40);
    await kill(d.child);
    d = await daemon();

    const summary = await pipeline.result(id);
    expect(summary.counts.byStatus).toEqual({ COMPLETED: n });
    const results = pipelineResults(outDir, n);
    const ids = new Set<string>();
    for (const r of results.values()) {
      const pair = r.stages.pair as { jobIds: string[] }[];
      const after = r.stages.after as { jobIds: string[] };
      expect(pair, `input ${r.index}`).toHaveLength(2);
      for (const e of [...pair, after]) {
        expect(e.jobIds, `input ${r.index}`).toHaveLength(1);
        ids.add(e.jobIds[0]!);
      }
    }
    expect(ids.size).toBe(3 * n);
    // The platform's own count of the jobs it holds for the endpoint: one per input per stage element, all completed.
    const health = await call(`http://127.0.0.1:${port}`, 'GET', `/v2/${sleep}/health`, { key });
    expect(health.body.jobs).toMatchObject({ completed: 3 * n, failed: 0, inQueue: 0, inProgress: 0 });
  }, 600_000);
});
