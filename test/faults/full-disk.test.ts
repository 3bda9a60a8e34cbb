/**
 * A full disk under the local results directory mid-batch: a small tmpfs (a real filesystem that
 * answers ENOSPC) holds the daemon's results store and the batch's outcome files; a filler file
 * takes its last bytes. The daemon's log names the path and ENOSPC, nothing is lost, and the batch
 * ends exactly once per input when the filler is removed. Mounting needs root (CAP_SYS_ADMIN), or
 * `sudo` without a password: without either the test is skipped and says why (a real filesystem
 * that fills up is the point; RLIMIT_FSIZE would give EFBIG, not ENOSPC).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, closeSync, writeSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchClient } from '../../client/batch';
import { isStoreError } from '../../results/errors';
import { openResultsStore } from '../../results/store/open';
import { inputFile, resultsOf } from '../batch/helpers';
import { daemonEnv, temporalEnv } from '../helpers/orchestrator';
import { eventually, freePort, testPlatform } from '../helpers/platform';
import { SLEEPERS as N, exampleEndpoint, expectEachSleeperOnce, sleeperLines } from './helpers';
import { startSluice, type SluiceProcess } from '../helpers/servers';

/** `cmd args` as root: directly when root, else through `sudo -n` (no password asked); the error text when it fails. */
function asRoot(cmd: string, args: string[]): string | undefined {
  const root = process.getuid?.() === 0;
  const r = spawnSync(root ? cmd : 'sudo', root ? args : ['-n', cmd, ...args], { encoding: 'utf8' });
  return r.status === 0 ? undefined : (r.stderr || r.error?.message || `${cmd} exited ${r.status}`).trim();
}

/** Mounts a tmpfs of `size` on `dir`, owned by this user; the error text when that is not possible here. */
const mountTmpfs = (dir: string, size: string): string | undefined =>
  asRoot('mount', [
    '-t',
    'tmpfs',
    '-o',
    `size=${size},mode=0700,uid=${process.getuid?.()},gid=${process.getgid?.()}`,
    'tmpfs',
    dir,
  ]);
const umount = (dir: string): void => void asRoot('umount', ['-l', dir]);

/** Whether this machine lets the test mount a tmpfs (probed once, at load). */
const probe = mkdtempSync(join(tmpdir(), 'sluice-tmpfs-probe-'));
const cannotMount = mountTmpfs(probe, '1m');
if (!cannotMount) umount(probe);
rmSync(probe, { recursive: true, force: true });

/** Fills the filesystem of `dir` with a file there until it answers ENOSPC; returns the file. */
function fill(dir: string): string {
  const file = join(dir, 'filler');
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) {
      const left = statfsSync(dir).bavail * statfsSync(dir).bsize;
      writeSync(fd, left > chunk.length ? chunk : chunk.subarray(0, Math.max(1, left)));
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  return file;
}

describe.skipIf(cannotMount)(
  `a full disk under the results directory${cannotMount ? ` (skipped: cannot mount a tmpfs: ${cannotMount})` : ''}`,
  () => {
    const root = mkdtempSync(join(tmpdir(), 'sluice-full-disk-'));
    const disk = join(root, 'disk');
    let env: Awaited<ReturnType<typeof temporalEnv>>;
    let platform: Awaited<ReturnType<typeof testPlatform>>;
    let daemon: SluiceProcess | undefined;

    beforeAll(async () => {
      mkdirSync(disk);
      const err = mountTmpfs(disk, '16m');
      if (err) throw new Error(`mount: ${err}`);
      env = await temporalEnv();
      platform = await testPlatform();
    }, 90_000);
    afterAll(async () => {
      await daemon?.stop();
      await platform?.dispose();
      await env?.teardown();
      umount(disk);
      rmSync(root, { recursive: true, force: true });
    });

    it('the local store on a full disk: NO_SPACE naming the file, no half line left in a log, appends again once space returns', async () => {
      const store = openResultsStore(join(disk, 'store-only'));
      const line = (n: number) => ({ n, pad: 'x'.repeat(40) });
      await store.append('log', [line(0)]);
      const filler = fill(disk);
      try {
        // Far more than the room left in the log's last page: the write(2) stops part-way.
        const many = Array.from({ length: 2000 }, (_, k) => line(k + 1));
        const err = await store.append('log', many).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isStoreError(err, 'NO_SPACE'), String(err)).toBe(true);
        expect((err as Error).message).toContain('ENOSPC');
        expect((err as Error).message).toContain(join(disk, 'store-only', 'log'));
        expect(await store.lines('log')).toEqual([line(0)]);
        const put = await store.put('value', { big: 'y'.repeat(100_000) }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isStoreError(put, 'NO_SPACE'), String(put)).toBe(true);
        expect((put as Error).message).toContain(join(disk, 'store-only', 'value'));
      } finally {
        rmSync(filler);
      }
      await store.append('log', [line(1)]);
      expect(await store.lines('log')).toEqual([line(0), line(1)]);
      await store.close();
    });

    it('ENOSPC mid-batch: the log names the path and ENOSPC, nothing lost, the batch resumes when space returns', async () => {
      const sleep = await exampleEndpoint({ platform }, 'sleep', 6);
      const resultsDir = join(disk, 'results');
      daemon = await startSluice(
        ['worker'],
        {
          ...daemonEnv(platform, env.address, resultsDir),
          SLUICE_DAEMON_PORT: String(await freePort()),
          SLUICE_BATCH_ROOTS: [tmpdir(), disk].join(','),
        },
        /sluice worker running/,
      );
      const batch = new BatchClient({ client: env.client, resultsDir });
      const { file, dir } = inputFile(sleeperLines());
      const outDir = join(disk, 'out');
      try {
        const id = await batch.start({
          endpointId: sleep,
          source: file,
          outDir,
          options: { concurrency: 6, webhookFallbackMs: 1000 },
        });
        await eventually(async () => (await batch.state(id)).counts.done >= 20, 90_000);
        const logFrom = daemon.out().length;
        const filler = fill(disk);
        const before = await batch.state(id);
        expect(before.counts.done, 'full mid-batch').toBeLessThan(N);
        // The daemon says what is wrong and where.
        await eventually(() => {
          const log = daemon!.out().slice(logFrom);
          return /ENOSPC/.test(log) && log.includes(disk);
        }, 60_000);
        // And `sluice batch status` (the view it prints) shows the step failing, and why.
        const failing = await eventually(async () => (await batch.view(id)).stepError, 60_000);
        expect(failing!.message).toContain('ENOSPC');
        expect(failing!.message).toContain(disk);
        rmSync(filler);

        const summary = await batch.result(id);
        expect(summary.counts.byStatus).toEqual({ COMPLETED: N });
        const results = resultsOf(
          outDir,
          Array.from({ length: N }, (_, i) => i),
        );
        expectEachSleeperOnce({ platform }, sleep, results);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 180_000);
  },
);
