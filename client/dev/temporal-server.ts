import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { stopPodProcess } from '../../platform/pods/pod-process';
import { temporalBinary } from './tools';

/** Options of {@link startTemporalDevServer}. */
export interface TemporalDevServerOptions {
  /** Folder of the SQLite file and the server log. */
  dataDir: string;
  /** gRPC port. Default 7233. */
  port?: number;
  /** Web UI port. Default 8233. */
  uiPort?: number;
  /** Default 127.0.0.1. */
  host?: string;
  namespace?: string;
}

export interface TemporalDevServer {
  address: string;
  uiUrl: string;
  namespace: string;
  stop(): Promise<void>;
}

/**
 * Starts `temporal server start-dev` with its state in a SQLite file of the data dir, so a
 * restart loses no workflow; resolves once the frontend answers.
 */
export async function startTemporalDevServer(o: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const host = o.host ?? '127.0.0.1';
  const port = o.port ?? 7233;
  const uiPort = o.uiPort ?? 8233;
  const namespace = o.namespace ?? 'default';
  mkdirSync(o.dataDir, { recursive: true });
  const log = openSync(join(o.dataDir, 'temporal.log'), 'a');
  let child: ChildProcess;
  try {
    child = spawn(temporalBinary(), [
      'server', 'start-dev', '--ip', host, '--port', String(port), '--ui-port', String(uiPort), '--namespace', namespace,
      '--db-filename', join(o.dataDir, 'temporal.sqlite'), '--log-level', 'warn', '--sqlite-pragma', 'journal_mode=WAL', '--sqlite-pragma', 'synchronous=NORMAL',
    ], { stdio: ['ignore', log, log], detached: true });
  } finally {
    closeSync(log);
  }
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `exited with code ${code} signal ${signal}`));
  const address = `${host}:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`the Temporal dev server ${exited}; see ${join(o.dataDir, 'temporal.log')}`);
    try {
      const c = await Connection.connect({ address, connectTimeout: 1000 });
      await c.healthService.check({});
      await c.close();
      break;
    } catch (err) {
      if (Date.now() > deadline) {
        await stopPodProcess(child, 2000);
        throw new Error(`the Temporal dev server did not answer on ${address} within 60 s: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return { address, uiUrl: `http://${host}:${uiPort}`, namespace, stop: () => stopPodProcess(child, 5000) };
}
