/** What the daemon's later steps share (worker/daemon.ts builds it first): its settings, log, metrics, store, clients and identity. */
import { type Client } from '@temporalio/client';
import { type Logger } from 'pino';
import { type ObjectStore } from '../results/store/object-store';
import { type WebhookHealth } from '../results/webhook-health';
import { type DaemonConfig } from './config';
import { type ServiceClients } from './daemon-clients';
import { type DaemonMetrics } from './metrics';

/** The daemon's parts built before its hub, its worker and its loops. */
export interface DaemonParts {
  config: DaemonConfig;
  logger: Logger;
  metrics: DaemonMetrics;
  store: ObjectStore;
  /** Whether webhooks reach the daemon. */
  health: WebhookHealth;
  /** The Temporal client (gRPC-js). */
  client: Client;
  clients: ServiceClients;
  /** The worker's identity, unique per daemon (two in one process too): the rate share counts daemons by it. */
  identity: string;
}
