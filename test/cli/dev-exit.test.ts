/** `sluice dev` leaves no Temporal dev server behind: SIGHUP, SIGKILL (the supervisor), a leftover (the next start stops it), Ctrl-C through a pipe. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serverProcesses } from '../../client/cli/dev/leftovers';
import { temporalDbFile } from '../../client/cli/dev/temporal-server';
import { signalGroup, stopProcessGroup } from '../../common/process';
import { freePort } from '../helpers/platform';
import { bin, cleanEnv, startSluice } from './run-sluice';

const root = mkdtempSync(join(tmpdir(), 'sluice-dev-exit-'));
const env = cleanEnv({ SLUICE_TEMPORAL_METRICS_PORT: '0' });
/** The processes of the data dir's Temporal server (supervisor and `temporal`). */
const servers = (dataDir: string) => serverProcesses(temporalDbFile(join(dataDir, 'temporal')));
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const devArgs = (dataDir: string, temporalPort: number) => [
  'dev',
  '--data-dir',
  dataDir,
  '--port',
  '0',
  '--daemon-port',
  '0',
  '--temporal-port',
  String(temporalPort),
];

describe('sluice dev stops its Temporal dev server on every exit path', () => {
  const started: ReturnType<typeof startSluice>[] = [];
  afterAll(async () => {
    await Promise.all(started.map((s) => s.stop()));
    for (const p of servers(join(root, 'hup')).concat(servers(join(root, 'kill')), servers(join(root, 'pipe'))))
      process.kill(p.pid, 'SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  it('SIGHUP (the terminal closed): sluice stops the whole stack and exits', async () => {
    const dataDir = join(root, 'hup');
    const dev = startSluice(devArgs(dataDir, await freePort()), env);
    started.push(dev);
    await dev.waitFor(/endpoints\s+.*echo=/);
    expect(servers(dataDir).length).toBe(2);
    process.kill(dev.child.pid!, 'SIGHUP');
    await until('sluice exits', () => dev.child.exitCode !== null || dev.child.signalCode !== null);
    expect(dev.child.exitCode, `signal ${dev.child.signalCode}:\n${dev.output}`).toBe(0);
    expect(servers(dataDir)).toEqual([]);
  });

  it('SIGKILL of sluice: the supervisor stops the server; a leftover (supervisor killed too) is stopped by the next start, which then runs', async () => {
    const dataDir = join(root, 'kill');
    const port = await freePort();
    const first = startSluice(devArgs(dataDir, port), env);
    started.push(first);
    await first.waitFor(/endpoints\s+.*echo=/);
    process.kill(first.child.pid!, 'SIGKILL');
    await until('the supervisor stops the server', () => servers(dataDir).length === 0);

    const second = startSluice(devArgs(dataDir, port), env);
    started.push(second);
    await second.waitFor(/endpoints\s+.*echo=/);
    const before = servers(dataDir);
    // sluice and its supervisor die at once: the server is left over.
    process.kill(second.child.pid!, 'SIGKILL');
    for (const p of before.filter((p) => p.owner !== undefined)) process.kill(p.pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 1500));
    const leftover = servers(dataDir).map((p) => p.pid);
    expect(leftover.length).toBe(1);

    const third = startSluice(devArgs(dataDir, port), env);
    started.push(third);
    await third.waitFor(/endpoints\s+.*echo=/);
    expect(third.output).toMatch(
      new RegExp(`stopped a leftover Temporal dev server of ${dataDir} \\(pids ${leftover[0]}\\)`),
    );
    expect(servers(dataDir).map((p) => p.pid)).not.toContain(leftover[0]);
    await third.stop();
    expect(servers(dataDir)).toEqual([]);
  });

  it("Ctrl-C on `sluice dev | cat` (SIGINT to the whole group, the pipe's reader dies too) stops everything", async () => {
    const dataDir = join(root, 'pipe');
    const cmd = [process.execPath, bin, ...devArgs(dataDir, await freePort())].map((a) => `'${a}'`).join(' ');
    const sh = spawn('sh', ['-c', `${cmd} | cat`], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    sh.stdout.on('data', (d: Buffer) => (out += d.toString()));
    sh.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await until('the banner', () => /endpoints\s+.*echo=/.test(out), 90_000);
      const owner = servers(dataDir).find((p) => p.owner !== undefined)!.owner!;
      signalGroup(sh, 'SIGINT');
      await until('sluice and the server exit', () => !alive(owner) && servers(dataDir).length === 0);
      // sluice stopped the stack itself (it did not die of EPIPE, leaving the supervisor to clean up).
      expect(out).not.toMatch(/EPIPE|Error/);
    } finally {
      await stopProcessGroup(sh, 5000);
    }
  });
});
