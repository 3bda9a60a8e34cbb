import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { call, eventually, testPlatform, waitForStatus } from '../helpers/platform';

describe('persistence across a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('jobs queued before a restart complete after it; a job running at the crash is FAILED and retryable', async () => {
    const first = await testPlatform({ dataDir });
    const echo = first.examples.echo!;
    const sleep = first.examples.sleep!.id;
    // Park the echo endpoint so jobs stay queued.
    first.registry.saveEndpoint({ ...echo, workersMax: 0 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await call(first.url, 'POST', `/v2/${echo.id}/run`, { body: { input: { i } } })).body.id);
    const running = await call(first.url, 'POST', `/v2/${sleep}/run`, { body: { input: { ms: 60_000 } } });
    await waitForStatus(first.url, sleep, running.body.id, ['IN_PROGRESS']);
    await first.close();

    const second = await testPlatform({ dataDir });
    try {
      expect(second.examples.echo!.id).toBe(echo.id);
      expect(second.apiKey).toBe(first.apiKey);
      for (const id of ids)
        expect((await call(second.url, 'GET', `/v2/${echo.id}/status/${id}`)).body.status).toBe('IN_QUEUE');
      second.registry.saveEndpoint({ ...second.registry.endpoint(echo.id)!, workersMax: 2 });
      for (const [i, id] of ids.entries()) {
        const done = await waitForStatus(second.url, echo.id, id, ['COMPLETED']);
        expect(done.output).toEqual({ i });
      }
      const lost = await call(second.url, 'GET', `/v2/${sleep}/status/${running.body.id}`);
      expect(lost.body.status).toBe('FAILED');
      expect(lost.body.error).toMatch(/platform shut down while this job was running/);
      const retry = await call(second.url, 'POST', `/v2/${sleep}/retry/${running.body.id}`);
      expect(retry.body.status).toBe('IN_QUEUE');
      await call(second.url, 'POST', `/v2/${sleep}/cancel/${running.body.id}`);
    } finally {
      await second.close();
    }
  });
});

describe('a crash of the platform process (SIGKILL)', () => {
  // `--data-dir` is the root of the local state; the platform keeps its own in <root>/platform.
  const root = mkdtempSync(join(tmpdir(), 'sluice-crash-'));
  const dataDir = join(root, 'platform');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('keeps queued jobs, fails the running ones with a clear error, and reaps the orphaned workers', async () => {
    const bin = join(__dirname, '..', '..', 'bin', 'sluice.cjs');
    const child = spawn(
      process.execPath,
      [bin, 'platform', '--port', '0', '--data-dir', root, '--api-key', 'crash-key'],
      {
        env: { ...process.env, SLUICE_LOG_LEVEL: 'warn', SLUICE_LOG_PRETTY: '0' },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    // Killed on every exit path: a failed wait below must not leave the platform (and its pods' reaper) running.
    const exited = new Promise((r) => child.once('exit', r));
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const url: string = (await eventually(() => /queue API\s+(http:\/\/[^/\s]+)/.exec(out)?.[1], 60_000))!;
    const sleep: string = (await eventually(() => /sleep=([a-z0-9]+)/.exec(out)?.[1]))!;
    const key = { key: 'crash-key' };
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await call(url, 'POST', `/v2/${sleep}/run`, { ...key, body: { input: { ms: 1500 + i } } })).body.id);
    // /status answers only what is committed, so these three are IN_PROGRESS on disk too.
    await eventually(
      async () => {
        const st = await Promise.all(
          ids.map(async (id) => (await call(url, 'GET', `/v2/${sleep}/status/${id}`, key)).body.status),
        );
        return st.filter((x) => x === 'IN_PROGRESS').length === 3;
      },
      60_000,
      10,
    );
    child.kill('SIGKILL');
    await exited;
    const podPids = readdirSync(join(dataDir, 'pods')).flatMap((id) => {
      try {
        return [Number(readFileSync(join(dataDir, 'pods', id, 'pid'), 'utf8'))];
      } catch {
        return [];
      }
    });
    expect(podPids.length).toBeGreaterThanOrEqual(3);

    const second = await testPlatform({ dataDir, apiKey: 'crash-key' });
    try {
      // Gone, or a zombie waiting for a reaper (a container's init may not reap): either way not running.
      const running = (pid: number) => {
        try {
          return !/State:\s+Z/.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
        } catch {
          return false;
        }
      };
      await eventually(() => podPids.every((pid) => !running(pid)), 60_000);
      const records = await Promise.all(
        ids.map(async (id) => (await call(second.url, 'GET', `/v2/${sleep}/status/${id}`, key)).body),
      );
      const failed = records.filter((r) => r.status === 'FAILED');
      expect(failed).toHaveLength(3);
      for (const f of failed) expect(f.error).toMatch(/platform restarted while this job was running/);
      const queued = records.filter((r) => r.status !== 'FAILED');
      expect(queued).toHaveLength(2);
      for (const q of queued) {
        const done = await waitForStatus(second.url, sleep, q.id, ['COMPLETED'], 20_000, 'crash-key');
        expect(done.output.slept).toBeGreaterThanOrEqual(1500);
      }
    } finally {
      await second.dispose();
    }
  });
});
