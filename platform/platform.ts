/**
 * The composition root: startPlatform builds the services, the HTTP server, the pool and the
 * sweeper (what it takes and gives: platform-options.ts).
 */
import { type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { systemClock, type Clock } from './core/clock';
import { dbFileIn, openDb } from './core/db';
import { defaultApiKey } from './control-plane/default-key';
import { toRecord } from './jobs/job';
import { JobEngine } from './jobs/engine';
import { JobStore } from './jobs/store';
import { PodPool } from './pods/pool';
import { RateLimiter } from './jobs/rate-limiter';
import { Registry } from './control-plane/registry';
import { seedExamples } from './control-plane/seed';
import { Sweeper } from './jobs/sweeper';
import { UserStore } from './control-plane/users';
import { WebhookSender } from './jobs/webhooks';
import { graphqlRoutes } from './transport/graphql/route';
import { restRoutes } from './transport/rest-routes';
import { createPlatformServer } from './transport/http/server';
import { createLogger } from '../common/logger';
import { describeFaults, parseFaults, type Faults } from './faults/options';
import { httpFaults } from './faults/http';
import { webhookFaults } from './faults/webhooks';
import { type PlatformServices } from './services';
import { PlatformMetrics } from './metrics';
import { type Platform, type PlatformOptions } from './platform-options';

export { type Platform, type PlatformOptions } from './platform-options';

/** The SQLite state: the users (the first one's key), the registry and the job engine, recovered from the store. */
function openState(options: PlatformOptions, dataDir: string, clock: Clock) {
  const db = openDb(dbFileIn(dataDir));
  const users = new UserStore(db);
  const firstKey = defaultApiKey(db, dataDir, options.apiKey ?? process.env.SLUICE_API_KEY);
  const user = users.ensure('default', firstKey.key);
  const registry = new Registry(db);
  const engine = new JobEngine(new JobStore(db), {
    clock,
    endpointExecutionTimeoutMs: (id) => registry.endpoint(id)?.executionTimeoutMs,
    ...(options.retentionAsyncMs !== undefined ? { retentionAsyncMs: options.retentionAsyncMs } : {}),
    ...(options.retentionSyncMs !== undefined ? { retentionSyncMs: options.retentionSyncMs } : {}),
  });
  const recovered = engine.recover();
  return { db, users, firstKey, user, registry, engine, recovered };
}

/** Sends a finished job's webhook, told only once committed: a receiver never learns of a result a crash could undo. */
function sendWebhooksOnFinish(engine: JobEngine, webhooks: WebhookSender): void {
  engine.on('finished', (job) => {
    if (!job.webhook) return;
    const url = job.webhook;
    const record = toRecord(job);
    void engine.persisted().then(() => webhooks.send(url, record));
  });
}

/** The HTTP server listening: the queue, worker, REST, GraphQL and /metrics routes, then the options' own groups. */
async function serve(
  services: PlatformServices,
  options: PlatformOptions,
  faults: Faults | undefined,
): Promise<{ server: Server; url: string }> {
  const controlPlane = [restRoutes, graphqlRoutes({ serverlessDiscount: options.serverlessDiscount ?? null })];
  const metrics = new PlatformMetrics(services);
  const server = createPlatformServer(
    services,
    [...controlPlane, metrics.route, ...(options.routes ?? [])],
    faults && httpFaults(faults, services.logger),
    options.http,
  );
  await listen(server, options.port ?? 8080, options.host ?? '127.0.0.1');
  const addr = server.address() as AddressInfo;
  return { server, url: `http://${addr.address.includes(':') ? `[${addr.address}]` : addr.address}:${addr.port}` };
}

/** Starts the local serverless platform: SQLite state, HTTP server, worker pool, sweeps. */
export async function startPlatform(options: PlatformOptions = {}): Promise<Platform> {
  const dataDir = resolve(options.dataDir ?? join('.data', 'platform'));
  const logger = options.logger ?? createLogger('platform');
  const faults = options.faults === undefined ? undefined : parseFaults(options.faults);
  const clock = options.clock ?? systemClock;
  const { db, users, firstKey, user, registry, engine, recovered } = openState(options, dataDir, clock);
  let url = '';
  const pool = new PodPool(registry, engine, { ...options.pods, baseUrl: () => url, dataDir, logger });
  const webhooks = new WebhookSender(logger, options.webhook, faults && webhookFaults(faults));
  sendWebhooksOnFinish(engine, webhooks);
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
  const http = await serve(services, options, faults);
  url = http.url;
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
    apiKey: firstKey.key,
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
          http.server.close(() => r());
          http.server.closeAllConnections();
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
