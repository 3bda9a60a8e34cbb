/** `temporal server start-dev` for `sluice dev`: its state in the data dir, stopped with its parent, and checked to be the server that answers. */
import { type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { isMainThread } from 'node:worker_threads';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import { stopProcessGroup } from '../../../common/process';
import { temporalBinary } from '../../../common/tools';
import { spawnWatched } from '../../../common/watchdog';
import { PortInUseError } from '../errors';
import { stopLeftoverServers } from './leftovers';

/** Options of {@link startTemporalDevServer}. */
export interface TemporalDevServerOptions {
  /** Folder of the SQLite file and the server log. */
  dataDir: string;
  /** gRPC port. @default 7233 */
  port?: number;
  /** Web UI port. @default 8233 */
  uiPort?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 'default' */
  namespace?: string;
}

export interface TemporalDevServer {
  address: string;
  uiUrl: string;
  namespace: string;
  stop(): Promise<void>;
}

/** The SQLite file of the data dir's server; its path in the command line identifies the server's processes. */
export const temporalDbFile = (dataDir: string): string => join(resolve(dataDir), 'temporal.sqlite');

/**
 * A namespace only this data dir's server has (created with `--namespace`): the server that
 * answers on the port is ours if it knows it, not another stack's that holds the port.
 */
const markerNamespace = (dbFile: string): string =>
  `sluice-dev-${createHash('sha256').update(dbFile).digest('hex').slice(0, 16)}`;

const CHANGE_PORT = 'choose another with --temporal-port';

/** How long a server without our namespace may answer before it is taken for another one, ms. */
const FOREIGN_GRACE_MS = 10_000;

/** What the server wrote to its log since `from`. */
function logSince(file: string, from: number): string {
  try {
    return readFileSync(file, 'utf8').slice(from);
  } catch {
    return '';
  }
}

/** Connects and asks for the marker namespace: true if our server answers, false if another one does; throws while nothing answers. */
async function answersAsOurs(address: string, marker: string): Promise<boolean> {
  const c = await Connection.connect({ address, connectTimeout: 1000 });
  try {
    await c.healthService.check({});
    try {
      await c.workflowService.describeNamespace({ namespace: marker });
      return true;
    } catch (err) {
      if ((err as { code?: number }).code === 5) return false; // NOT_FOUND: a server without our namespace
      throw err;
    }
  } finally {
    await c.close();
  }
}

/** The server's command line: its ports, both namespaces, the SQLite file (WAL) of the data dir. */
function serverArgs(host: string, port: number, uiPort: number, namespaces: string[], dbFile: string): string[] {
  return [
    'server',
    'start-dev',
    '--ip',
    host,
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    ...namespaces.flatMap((n) => ['--namespace', n]),
    '--db-filename',
    dbFile,
    '--log-level',
    'warn',
    '--sqlite-pragma',
    'journal_mode=WAL',
    '--sqlite-pragma',
    'synchronous=NORMAL',
  ];
}

/** A started server process and where its log goes (`logStart`: the log's size before it started). */
interface SpawnedServer {
  child: ChildProcess;
  logFile: string;
  logStart: number;
}

/** Spawns the server (watched: it stops when this process dies), its log in the data dir, its SQLite files 0600. */
function spawnServer(dataDir: string, dbFile: string, args: string[]): SpawnedServer {
  const logFile = join(dataDir, 'temporal.log');
  const log = openSync(logFile, 'a', 0o600);
  const logStart = statSync(logFile).size;
  // SQLite creates the database, its WAL and shm files with the server's umask: 077 makes them 0600
  // (the child inherits the umask at spawn); those of an older version are made so here.
  for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
  const umask = isMainThread ? process.umask(0o077) : undefined;
  try {
    return { child: spawnWatched(temporalBinary(), args, { stdio: ['ignore', log, log] }), logFile, logStart };
  } finally {
    if (umask !== undefined) process.umask(umask);
    closeSync(log);
  }
}

/**
 * Resolves once the spawned server answers with the marker namespace, within 60 s; a server without
 * it (another one holding the port) or a server that exited on a port in use is a PortInUseError.
 */
async function untilOursAnswers(server: SpawnedServer, address: string, port: number, marker: string): Promise<void> {
  const { child, logFile, logStart } = server;
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `exited with code ${code} signal ${signal}`));
  const deadline = Date.now() + 60_000;
  let foreignSince: number | undefined;
  for (;;) {
    if (exited) {
      if (foreignSince !== undefined || /address already in use|bind:/i.test(logSince(logFile, logStart))) {
        throw new PortInUseError(port, 'the Temporal dev server', CHANGE_PORT, 'is held by another Temporal server');
      }
      throw new Error(`the Temporal dev server ${exited}; see ${logFile}`);
    }
    let ours: boolean | undefined;
    try {
      ours = await answersAsOurs(address, marker);
    } catch (err) {
      if (Date.now() > deadline) {
        await stopProcessGroup(child, 2000);
        throw new Error(`the Temporal dev server did not answer on ${address} within 60 s: ${(err as Error).message}`);
      }
    }
    if (ours) return;
    // A server without our namespace: another one holds the port (ours then exits), or ours is still creating it.
    if (ours === false && Date.now() - (foreignSince ??= Date.now()) > FOREIGN_GRACE_MS) {
      await stopProcessGroup(child, 2000);
      throw new PortInUseError(port, 'the Temporal dev server', CHANGE_PORT, 'is held by another Temporal server');
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Starts `temporal server start-dev` with its state in a SQLite file of the data dir, so a
 * restart loses no workflow; resolves once it answers. A leftover server of the same data dir
 * (its `sluice` died) is stopped first. The server runs under a supervisor that stops it when
 * this process dies by any means. If another server holds the port, this fails with a
 * {@link PortInUseError} instead of using that server.
 */
export async function startTemporalDevServer(o: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const host = o.host ?? '127.0.0.1';
  const port = o.port ?? 7233;
  const uiPort = o.uiPort ?? 8233;
  const namespace = o.namespace ?? 'default';
  const dbFile = temporalDbFile(o.dataDir);
  // Its database holds every workflow's inputs and results: private to the user, also when made by an older version.
  mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  chmodSync(o.dataDir, 0o700);
  await stopLeftoverServers(dbFile, resolve(o.dataDir, '..'));
  const marker = markerNamespace(dbFile);
  const server = spawnServer(o.dataDir, dbFile, serverArgs(host, port, uiPort, [namespace, marker], dbFile));
  const address = `${host}:${port}`;
  await untilOursAnswers(server, address, port, marker);
  return { address, uiUrl: `http://${host}:${uiPort}`, namespace, stop: () => stopProcessGroup(server.child, 5000) };
}
