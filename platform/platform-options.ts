/** What startPlatform takes (its options; every duration defaults to the spec's value) and what it gives (a running platform). */
import { type Logger } from 'pino';
import { type Endpoint, type ServerlessDiscount } from '../contracts';
import { type Clock } from './core/clock';
import { type Db } from './core/db';
import { type ExampleName } from './control-plane/seed';
import { type User } from './control-plane/users';
import { type WebhookOptions } from './jobs/webhooks';
import { type RateLimiterOptions } from './jobs/rate-limiter';
import { type PodPoolOptions } from './pods/pool';
import { type HttpTimeoutOptions, type RouteGroup } from './transport/http/server';
import { type Faults, type FaultsInput } from './faults/options';
import { type PlatformServices } from './services';

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
