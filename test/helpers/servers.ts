/** Servers a fault or crash test kills and starts again on the same state and port: the Temporal dev server on a SQLite file, a `sluice` process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { hasExited, signalGroup, stopProcessGroup } from '../../common/process';
import { temporalBinary } from '../../common/tools';
import { spawnWatched } from '../../common/watchdog';
import { eventually } from './platform';

/** A Temporal dev server process on a fixed port and SQLite file. */
export interface TemporalServer {
  address: string;
  /** SIGKILLs the server's process group; resolves once it exited. */
  kill(): Promise<void>;
  /** Starts it again on the same file and port; resolves once it answers. */
  restart(): Promise<void>;
  /** Stops it (SIGTERM, then SIGKILL). */
  stop(): Promise<void>;
}

/** `temporal server start-dev` on 127.0.0.1:`port` with its state in `dbFile` (as `sluice dev` runs it); resolves once it answers. */
export async function startTemporalServer(dbFile: string, port: number): Promise<TemporalServer> {
  const address = `127.0.0.1:${port}`;
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless'];
  args.push('--db-filename', dbFile, '--log-level', 'error', '--sqlite-pragma', 'journal_mode=WAL');
  let proc: ChildProcess;
  const up = async (): Promise<void> => {
    proc = spawnWatched(temporalBinary(), args, { stdio: 'ignore', graceMs: 2000 });
    await eventually(async () => {
      if (hasExited(proc)) throw new Error('the Temporal dev server exited while starting');
      const c = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await c.workflowService.describeNamespace({ namespace: 'default' });
        return true;
      } finally {
        await c.close();
      }
    }, 60_000);
  };
  await up();
  return {
    address,
    async kill() {
      const gone = new Promise((r) => (hasExited(proc) ? r(undefined) : proc.once('exit', r)));
      signalGroup(proc, 'SIGKILL');
      await gone;
    },
    restart: up,
    stop: () => stopProcessGroup(proc, 3000),
  };
}

const bin = join(__dirname, '..', '..', 'bin', 'sluice.cjs');

/** A `sluice` process in its own group, its output kept. */
export interface SluiceProcess {
  child: ChildProcess;
  out(): string;
  stop(): Promise<void>;
}

/** Starts `sluice <args>` with `env` added, and waits for `ready` in its output. */
export async function startSluice(args: string[], env: Record<string, string>, ready: RegExp): Promise<SluiceProcess> {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, SLUICE_LOG_LEVEL: 'info', SLUICE_LOG_PRETTY: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const p = { child, out: () => out, stop: () => stopProcessGroup(child, 5000) };
  try {
    await eventually(() => {
      if (hasExited(child)) throw new Error(`sluice ${args[0]} exited:\n${out.slice(-2000)}`);
      return ready.test(out);
    }, 60_000);
  } catch (err) {
    await p.stop();
    throw err;
  }
  return p;
}
