/** A real S3-compatible server for tests and benches: MinIO from the install step, on a free port, in a temp dir, as its own process group. */
import { type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { request } from 'undici';
import { hasExited, signalGroup, stopProcessGroup } from '../../common/process';
import { minioBinary } from '../../common/tools';
import { spawnWatched } from '../../common/watchdog';

/** A running server: where it listens, its credentials as the standard AWS variables, a bucket. */
export interface S3Server {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** AWS_ENDPOINT_URL_S3, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION for this server. */
  env: Record<string, string>;
  /** `s3://<bucket>/<prefix>` */
  url(prefix?: string): string;
  /** The server's process group (its supervisor's pid; a new one after `restart`). */
  readonly pgid: number;
  dataDir: string;
  /** Another bucket on the same server. */
  createBucket(name: string): Promise<void>;
  /** SIGKILLs the server's process group (its data stays); resolves once it exited. */
  kill(): Promise<void>;
  /** Starts the server again on the same data dir, port and credentials; resolves once it is ready. */
  restart(): Promise<void>;
  /** Stops the whole process group and removes its data. */
  stop(): Promise<void>;
}

/** Options of {@link startS3Server}. */
export interface S3ServerOptions {
  /**
   * The bucket created at start. @default 'sluice-test-<random>': a bucket name of its own, since a process keeps
   * one S3 client per bucket URL (results/batch/locations.ts) and a test fork runs many files (vitest.config.ts).
   */
  bucket?: string;
  /** How long the server may take to answer ready, ms. @default 30000 */
  readyMs?: number;
}

/** Starts MinIO (single drive) on 127.0.0.1 port 0, waits until it is ready and creates the bucket. */
export async function startS3Server(o: S3ServerOptions = {}): Promise<S3Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-s3-'));
  const accessKeyId = `sluice${randomBytes(4).toString('hex')}`;
  const secretAccessKey = randomBytes(16).toString('hex');
  const spawnAt = (address: string): ChildProcess =>
    spawnWatched(minioBinary(), ['server', '--address', address, '--quiet', '--json', join(dataDir, 'drive')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      graceMs: 3000,
      env: {
        ...process.env,
        MINIO_ROOT_USER: accessKeyId,
        MINIO_ROOT_PASSWORD: secretAccessKey,
        MINIO_BROWSER: 'off',
        MINIO_UPDATE: 'off',
        MINIO_CI_CD: '1',
      },
    });
  let proc = spawnAt('127.0.0.1:0');
  const stop = async (): Promise<void> => {
    await stopProcessGroup(proc, 3000);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const endpoint = await listening(proc, o.readyMs ?? 30_000);
    await ready(endpoint, proc, o.readyMs ?? 30_000);
    const env = {
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      AWS_REGION: 'us-east-1',
    };
    const createBucket = async (name: string): Promise<void> => {
      const client = new S3Client({
        endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId, secretAccessKey },
      });
      try {
        await client.send(new CreateBucketCommand({ Bucket: name }));
      } finally {
        client.destroy();
      }
    };
    const bucket = o.bucket ?? `sluice-test-${randomBytes(4).toString('hex')}`;
    await createBucket(bucket);
    return {
      endpoint,
      bucket,
      accessKeyId,
      secretAccessKey,
      env,
      get pgid() {
        return proc.pid!;
      },
      dataDir,
      createBucket,
      stop,
      async kill() {
        const gone = new Promise((r) => (hasExited(proc) ? r(undefined) : proc.once('exit', r)));
        signalGroup(proc, 'SIGKILL');
        await gone;
      },
      async restart() {
        proc = spawnAt(endpoint.replace('http://', ''));
        await listening(proc, o.readyMs ?? 30_000);
        await ready(endpoint, proc, o.readyMs ?? 30_000);
      },
      url: (prefix = '') => `s3://${bucket}/${prefix}`,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The API address MinIO prints once it listens (`--json`: a log line whose message holds `API: http://...`). */
function listening(proc: ChildProcess, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => done(new Error(`MinIO did not report its address within ${ms} ms:\n${out.slice(-2000)}`)),
      ms,
    );
    const done = (err?: Error, endpoint?: string): void => {
      clearTimeout(timer);
      proc.stdout?.off('data', onData);
      proc.stderr?.off('data', onData);
      proc.off('exit', onExit);
      // Keep draining so the server never blocks on a full pipe.
      proc.stdout?.resume();
      proc.stderr?.resume();
      if (err) reject(err);
      else resolve(endpoint!);
    };
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /API: (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) done(undefined, m[1]);
    };
    const onExit = (): void => done(new Error(`MinIO exited before listening:\n${out.slice(-2000)}`));
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    proc.once('exit', onExit);
    if (hasExited(proc)) onExit();
  });
}

/** Polls MinIO's readiness probe until it answers 200. */
async function ready(endpoint: string, proc: ChildProcess, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (hasExited(proc)) throw new Error('MinIO exited while starting');
    try {
      const res = await request(`${endpoint}/minio/health/ready`);
      await res.body.dump();
      if (res.statusCode === 200) return;
    } catch {
      // not accepting yet
    }
    if (Date.now() > deadline) throw new Error(`MinIO at ${endpoint} was not ready within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
