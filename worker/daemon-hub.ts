/** The daemon's webhook hub: its shared secret, the inbox its batch webhooks go to, the `/status` calls it makes counted. */
import { randomBytes } from 'node:crypto';
import { countedQueue } from '../activities/service-calls';
import { StoreInbox } from '../results/batch/store-inbox';
import { type DaemonParts } from './daemon-parts';
import { WebhookHub } from './webhook-hub';
import { sharedWebhookSecret } from './webhook-secret';

/**
 * Builds the webhook hub, and the inbox of its batch webhooks in the results store (where any
 * daemon's step takes them); `url`, the daemon's own, is the webhooks' base unless SLUICE_PUBLIC_URL is set.
 */
export async function daemonHub(p: DaemonParts, url: string): Promise<{ hub: WebhookHub; inbox: StoreInbox }> {
  const { config, store, metrics } = p;
  const inbox = new StoreInbox({ store, daemonId: `${p.identity}-${randomBytes(3).toString('hex')}` });
  const hub = new WebhookHub({
    secret: await sharedWebhookSecret(config.SLUICE_WEBHOOK_SECRET, store),
    publicUrl: config.SLUICE_PUBLIC_URL ?? url,
    client: p.client,
    store,
    // Counted like the activities' calls: a webhook's /status and the fallback polls are HTTP calls too.
    queue: countedQueue(p.clients.queue, metrics),
    logger: p.logger,
    metrics,
    inbox,
    health: p.health,
    fallbackFirstMs: config.SLUICE_WEBHOOK_FALLBACK_MS,
    confirm: config.SLUICE_WEBHOOK_CONFIRM,
  });
  return { hub, inbox };
}
