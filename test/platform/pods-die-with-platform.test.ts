/** Worker pods die with their platform, even when the platform process is SIGKILLed. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { GraphqlClient } from '../../platform-api';
import { eventually, freePort } from '../helpers/platform';

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
  let platform: ChildProcess | undefined;
  const groups: number[] = [];
  afterAll(() => {
    platform?.kill('SIGKILL');
    for (const g of groups) if (alive(g)) process.kill(-g, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a SIGKILLed platform takes its warm workers with it (their whole process groups)', async () => {
    const port = await freePort();
    platform = spawn(
      process.execPath,
      [bin, 'platform', '--port', String(port), '--data-dir', dataDir, '--api-key', 'k'],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SLUICE_LOG_LEVEL: 'warn' } },
    );
    let out = '';
    platform.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await eventually(() => /echo=(\S+)/.test(out), 60_000);
    const echo = /echo=(\S+)/.exec(out)![1]!;
    const graphql = new GraphqlClient({ url: `http://127.0.0.1:${port}/graphql`, apiKey: 'k' });
    await graphql.saveEndpoint({ id: echo, workersMin: 2, workersMax: 2 });
    await graphql.close();
    const podsDir = join(dataDir, 'platform', 'pods');
    await eventually(() => {
      const pids = readdirSync(podsDir).flatMap((d) => {
        try {
          return [Number(readFileSync(join(podsDir, d, 'pid'), 'utf8'))];
        } catch {
          return [];
        }
      });
      groups.splice(0, groups.length, ...pids);
      return pids.length === 2 && pids.every(alive);
    }, 30_000);
    platform.kill('SIGKILL');
    // The reaper notices within 0.5 s and gives the workers the platform's stop grace time.
    await eventually(() => groups.every((g) => !alive(g)), 20_000);
  }, 90_000);
});
