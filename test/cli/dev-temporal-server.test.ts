/** The dev stack's Temporal server: it refuses a port another Temporal server holds (never joins it), and leaves no process behind. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { serverProcesses } from '../../client/cli/dev/leftovers';
import { startTemporalDevServer, temporalDbFile } from '../../client/cli/dev/temporal-server';
import { PortInUseError } from '../../client/cli/errors';
import { stopProcessGroup } from '../../common/process';
import { temporalBinary } from '../../common/tools';
import { freePort } from '../helpers/platform';

async function answers(address: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      const c = await Connection.connect({ address, connectTimeout: 1000 });
      await c.healthService.check({});
      await c.close();
      return;
    } catch (err) {
      if (i > 120) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

describe("the dev stack's Temporal server", () => {
  const root = mkdtempSync(join(tmpdir(), 'sluice-temporal-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('fails with PORT_IN_USE naming the port and --temporal-port when another Temporal server answers there, and stops its own', async () => {
    const port = await freePort();
    const other = spawn(
      temporalBinary(),
      [
        'server',
        'start-dev',
        '--headless',
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--db-filename',
        join(root, 'other.sqlite'),
        '--log-level',
        'error',
      ],
      { detached: true, stdio: 'ignore' },
    );
    try {
      await answers(`127.0.0.1:${port}`);
      const dataDir = join(root, 'mine', 'temporal');
      const err = await startTemporalDevServer({ dataDir, port, uiPort: await freePort() }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(PortInUseError);
      expect((err as PortInUseError).code).toBe('PORT_IN_USE');
      expect((err as Error).message).toMatch(
        new RegExp(
          `port ${port} \\(the Temporal dev server\\) is held by another Temporal server; choose another with --temporal-port`,
        ),
      );
      expect(serverProcesses(temporalDbFile(dataDir))).toEqual([]);
    } finally {
      await stopProcessGroup(other, 5000);
    }
  });

  it('runs under a supervisor: its processes are found by data dir while it runs, and none remain after stop()', async () => {
    const dataDir = join(root, 'own', 'temporal');
    const server = await startTemporalDevServer({ dataDir, port: await freePort(), uiPort: await freePort() });
    try {
      expect(serverProcesses(temporalDbFile(dataDir)).length).toBe(2);
    } finally {
      await server.stop();
    }
    expect(serverProcesses(temporalDbFile(dataDir))).toEqual([]);
  });
});
