/** The composition root: startPlatform builds the services, the HTTP server, the pool and the sweeper. */
import { type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { type Logger } from 'pino';
import { type Endpoint, type ServerlessDiscount } from '../contracts';
import { systemClock, type Clock } from './core/clock';
import { dbFileIn, openDb, type Db } from './core/db';
import { defaultApiKey } from './control-plane/default-key';
import { toRecord } from './jobs/job';
import { JobEngine } from './jobs/engine';
import { JobStore } from './jobs/store';
import { PodPool, type PodPoolOptions } from './pods/pool';
import { RateLimiter, type RateLimiterOptions } from './jobs/rate-limiter';
import { Registry } from './control-plane/registry';
import { seedExamples, type ExampleName } from './control-plane/seed';
import { Sweeper } from './jobs/sweeper';
import { UserStore, type User } from './control-plane/users';
import { WebhookSender, type WebhookOptions } from './jobs/webhooks';
import { graphqlRoutes } from './transport/graphql/route';
import { restRoutes } from './transport/rest-routes';
import { createPlatformServer, type HttpTimeoutOptions, type RouteGroup } from './transport/http/server';
import { createLogger } from '../common/logger';
import { describeFaults, parseFaults, type Faults, type FaultsInput } from './faults/options';
import { httpFaults } from './faults/http';
import { webhookFaults } from './faults/webhooks';
import { type PlatformServices } from './services';
import { PlatformMetrics } from './metrics';

/** Options of {@link startPlatform}. Every duration defaults to the spec's value. */
export interface PlatformOptions {
  /**
   * Port to listen on; 0 picks a free one.
   * @default 8080
   */
  port?: number;
  /**
   * Address to listen on.
   * @default '127.0.0.1'
   */
  host?: string;
  /**
   * Folder of the SQLite database and pod logs.
   * @default './.data/platform'
   */
  dataDir?: string;
  /**
   * Key of the first user.
   * @default SLUICE_API_KEY, else the key kept in `<dataDir>/api-key` (0600), else a new one
   */
  apiKey?: string;
  /**
   * The clock every deadline is computed from.
   * @default systemClock
   */
  clock?: Clock;
  /**
   * Result retention after a `/run` job finishes, in ms.
   * @default 1800000 (30 min)
   */
  retentionAsyncMs?: number;
  /**
   * Result retention after a `/runsync` job finishes, in ms.
   * @default 60000 (1 min)
   */
  retentionSyncMs?: number;
  /** Webhook retries and timeouts (see {@link WebhookOptions}). */
  webhook?: WebhookOptions;
  /** Rate limits (see {@link RateLimiterOptions}). */
  rateLimits?: RateLimiterOptions;
  /** Worker pods (see {@link PodPoolOptions}). */
  pods?: Omit<PodPoolOptions, 'baseUrl' | 'dataDir' | 'logger'>;
  /**
   * Hold of an idle `job-take`/`job-stop` long-poll, in ms (the stock SDK gives up at 90 s).
   * @default 20000
   */
  takeWaitMs?: number;
  /**
   * Hold of an empty `/stream` request, in ms.
   * @default 1000
   */
  streamHoldMs?: number;
  /**
   * Period of the ttl/timeout/retention sweep, in ms.
   * @default 250
   */
  sweepIntervalMs?: number;
  /**
   * Create the example endpoints (echo, stream, fail, sleep, flaky).
   * @default true
   */
  seedExamples?: boolean;
  /**
   * Where the platform logs.
   * @default createLogger('platform')
   */
  logger?: Logger;
  /**
   * What GraphQL `myself { serverlessDiscount }` returns.
   * @default null (no discount)
   */
  serverlessDiscount?: ServerlessDiscount | null;
  /** How long the HTTP server waits for slow clients (see {@link HttpTimeoutOptions}). */
  http?: HttpTimeoutOptions;
  /** Extra HTTP route groups, after the built-in queue, worker, REST and GraphQL ones. */
  routes?: RouteGroup[];
  /**
   * The fault mode: seeded 429s, 502 pages, resets, delays of the client-facing APIs and lost,
   * duplicated, delayed or reset webhooks (platform/faults/options.ts; `--faults` reads a spec
   * with `parseFaultSpec`). Parsed with zod at start; a bad value throws `FaultSpecError`.
   * @default undefined (no faults)
   */
  faults?: FaultsInput;
}

/** A running platform. */
export interface Platform extends PlatformServices {
  url: string;
  /** The first user's key (the database keeps its hash only). */
  apiKey: string;
  /** The 0600 file that keeps {@link apiKey} for the operator and for restarts. */
  apiKeyFile: string;
  /** True when this start made or changed the key: the one time a banner shows it. */
  apiKeyCreated: boolean;
  user: User;
  examples: Partial<Record<ExampleName, Endpoint>>;
  db: Db;
  /** The fault mode's options in force, or undefined when off. */
  faults: Faults | undefined;
  /** Applies ttl, timeouts and retention now (after moving an adjustable clock). */
  sweep(): void;
  close(): Promise<void>;
}

/** Starts the local serverless platform: SQLite state, HTTP server, worker pool, sweeps. */
export async function startPlatform(options: PlatformOptions = {}): Promise<Platform> {
  const dataDir = resolve(options.dataDir ?? join('.data', 'platform'));
  const logger = options.logger ?? createLogger('platform');
  const faults = options.faults === undefined ? undefined : parseFaults(options.faults);
  const clock = options.clock ?? systemClock;
  const db = openDb(dbFileIn(dataDir));
  const users = new UserStore(db);
  const firstKey = defaultApiKey(db, dataDir, options.apiKey ?? process.env.SLUICE_API_KEY);
  const key = firstKey.key;
  const user = users.ensure('default', key);
  const registry = new Registry(db);
  const engine = new JobEngine(new JobStore(db), {
    clock,
    endpointExecutionTimeoutMs: (id) => registry.endpoint(id)?.executionTimeoutMs,
    ...(options.retentionAsyncMs !== undefined ? { retentionAsyncMs: options.retentionAsyncMs } : {}),
    ...(options.retentionSyncMs !== undefined ? { retentionSyncMs: options.retentionSyncMs } : {}),
  });
  const recovered = engine.recover();
  let url = '';
  const pool = new PodPool(registry, engine, { ...options.pods, baseUrl: () => url, dataDir, logger });
  const webhooks = new WebhookSender(logger, options.webhook, faults && webhookFaults(faults));
  engine.on('finished', (job) => {
    if (!job.webhook) return;
    // Told only once committed: a receiver never learns of a result a crash could undo.
    const url = job.webhook;
    const record = toRecord(job);
    void engine.persisted().then(() => webhooks.send(url, record));
  });
  const services: PlatformServices = {
    clock,
    users,
    registry,
    engine,
    pool,
    logger,
    limiter: new RateLimiter(options.rateLimits),
    takeWaitMs: options.takeWaitMs ?? 20_000,
    streamHoldMs: options.streamHoldMs ?? 1000,
  };
  const examples = options.seedExamples === false ? {} : seedExamples(registry, user);
  const controlPlane = [restRoutes, graphqlRoutes({ serverlessDiscount: options.serverlessDiscount ?? null })];
  const metrics = new PlatformMetrics({ registry, engine, pool });
  const server = createPlatformServer(
    services,
    [...controlPlane, metrics.route, ...(options.routes ?? [])],
    faults && httpFaults(faults, logger),
    options.http,
  );
  await listen(server, options.port ?? 8080, options.host ?? '127.0.0.1');
  const addr = server.address() as AddressInfo;
  url = `http://${addr.address.includes(':') ? `[${addr.address}]` : addr.address}:${addr.port}`;
  const sweeper = new Sweeper(engine, clock, options.sweepIntervalMs ?? 250);
  sweeper.start();
  pool.start();
  logger.info({ url, dataDir, ...recovered }, 'platform listening');
  const faultsOn = faults && describeFaults(faults);
  if (faultsOn) logger.warn({ faults: faultsOn }, `fault mode on: ${faultsOn}`);

  let closing: Promise<void> | undefined;
  return {
    ...services,
    url,
    apiKey: key,
    apiKeyFile: firstKey.file,
    apiKeyCreated: firstKey.created,
    user,
    examples,
    db,
    faults,
    sweep: () => void sweeper.runOnce(),
    close: () =>
      (closing ??= (async () => {
        sweeper.stop();
        webhooks.close();
        await pool.close();
        await new Promise<void>((r) => {
          server.close(() => r());
          server.closeAllConnections();
        });
        engine.flush();
        db.close();
      })()),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
