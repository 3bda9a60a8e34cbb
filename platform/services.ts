/** The services the transports call, built once by the composition root. */
import { type Logger } from 'pino';
import { type Clock } from './core/clock';
import { type JobEngine } from './jobs/engine';
import { type PodPool } from './pods/pool';
import { type RateLimiter } from './jobs/rate-limiter';
import { type Registry } from './control-plane/registry';
import { type UserStore } from './control-plane/users';

/** The domain objects the transport calls; built once by the platform's composition root. */
export interface PlatformServices {
  clock: Clock;
  users: UserStore;
  registry: Registry;
  engine: JobEngine;
  pool: PodPool;
  limiter: RateLimiter;
  logger: Logger;
  /** How long `job-take` and `job-stop` hold a request when there is nothing to hand out. */
  takeWaitMs: number;
  /** How long `/stream` holds a request when no chunk is pending. */
  streamHoldMs: number;
}
