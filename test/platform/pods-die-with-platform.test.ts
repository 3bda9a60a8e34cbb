/** Worker pods die with their platform, even when the platform process is SIGKILLed; a platform restarted on the same data dir keeps its own. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GraphqlClient } from '../../platform-api';
import { eventually, freePort } from '../helpers/platform';
import { liveGroupMembers, processesMentioning } from '../helpers/processes';

const bin = join(__dirname, '..', '..', 'bin', 'sluice.cjs');
const alive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('pods of a killed platform', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-pods-die-'));
  const podsDir = join(dataDir, 'platform', 'pods');
  const platforms: ChildProcess[] = [];
  const groups: number[] = [];
  afterAll(() => {
    for (const p of platforms) p.kill('SIGKILL');
    for (const g of groups) if (alive(g)) process.kill(-g, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** `sluice platform` on `port` and the data dir; resolves with its echo endpoint's id once it serves. */
  const startPlatform = async (port: number): Promise<{ child: ChildProcess; echo: string }> => {
    const child = spawn(
      process.execPath,
      [bin, 'platform', '--port', String(port), '--data-dir', dataDir, '--api-key', 'k'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, SLUICE_LOG_LEVEL: 'warn' },
      },
    );
    platforms.push(child);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await eventually(() => /echo=(\S+)/.test(out), 60_000);
    return { child, echo: /echo=(\S+)/.exec(out)![1]! };
  };
  /** The process groups of the pods listed now, once there are `n`, all alive. */
  const podGroups = async (n: number): Promise<number[]> =>
    (await eventually(() => {
      const pids = readdirSync(podsDir).flatMap((d) => {
        try {
          return [Number(readFileSync(join(podsDir, d, 'pid'), 'utf8'))];
        } catch {
          return [];
        }
      });
      return pids.length === n && pids.every(alive) ? pids : undefined;
    }, 30_000))!;
  const sigkill = async (child: ChildProcess): Promise<void> => {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  };

  it('a SIGKILLed platform takes its warm workers with it (their whole process groups)', async () => {
    const port = await freePort();
    const { child, echo } = await startPlatform(port);
    const graphql = new GraphqlClient({ url: `http://127.0.0.1:${port}/graphql`, apiKey: 'k' });
    await graphql.saveEndpoint({ id: echo, workersMin: 2, workersMax: 2 });
    await graphql.close();
    groups.push(...(await podGroups(2)));
    await sigkill(child);
    // The reaper notices within 0.5 s and gives the workers the platform's stop grace time.
    await eventually(() => groups.every((g) => !alive(g)), 20_000);
  });

  it("a platform restarted at once on the same data dir keeps its new workers past the dead one's reaper grace", async () => {
    const port = await freePort();
    const first = await startPlatform(port);
    const graphql = new GraphqlClient({ url: `http://127.0.0.1:${port}/graphql`, apiKey: 'k' });
    await graphql.saveEndpoint({ id: first.echo, workersMin: 2, workersMax: 2 });
    await graphql.close();
    const old = await podGroups(2);
    groups.push(...old);
    // The first platform's pod reaper (common/watchdog.ts: `node -e <script> -- <parent pid> <grace> <pods dir>`).
    const reapers = processesMentioning(`-- ${first.child.pid} `).filter((p) =>
      processesMentioning(podsDir).includes(p),
    );
    expect(reapers).toHaveLength(1);
    await sigkill(first.child);
    await startPlatform(port);
    // The new platform kills the old workers (orphans) and starts two of its own, listed in the same pods dir.
    await eventually(() => old.every((g) => !alive(g)), 30_000);
    const fresh = await podGroups(2);
    groups.push(...fresh);
    // The dead platform's reaper SIGKILLs 10 s (its stop grace) after it noticed, only the groups it saw then, and
    // exits: once it is gone (and a second for the signals' effect), the new workers still live.
    await eventually(() => reapers.every((pid) => !processesMentioning(podsDir).includes(pid)), 60_000, 100);
    await new Promise((r) => setTimeout(r, 1000));
    expect(fresh.filter((g) => liveGroupMembers(g).length > 0)).toEqual(fresh);
  });
});
