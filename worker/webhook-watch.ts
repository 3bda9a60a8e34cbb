/**
 * The daemon's word on whether webhooks reach it: one warn line per change (naming
 * `SLUICE_PUBLIC_URL`, the address the service calls) and the `/readyz` detail.
 */
import { type Logger } from 'pino';
import { WebhookHealth } from '../results/webhook-health';

/** The daemon's webhook health, logging each change once; `publicUrl` is read when it changes. */
export function webhookHealth(logger: Logger, publicUrl: () => string): WebhookHealth {
  return new WebhookHealth({
    onChange: (healthy, scope, s) => {
      const batch = scope ? { batch: scope } : {};
      if (!healthy)
        logger.warn(
          { ...batch, publicUrl: publicUrl(), missed: s.missed },
          `webhooks stopped reaching ${scope ? `batch ${scope} on ` : ''}this daemon: its jobs are polled on /status instead (slower, more calls); check that SLUICE_PUBLIC_URL (${publicUrl()}) is reachable from the service`,
        );
      else
        logger.warn({ ...batch, publicUrl: publicUrl() }, 'webhooks reach this daemon again: jobs complete by webhook');
    },
  });
}

/** What `/readyz` says of webhooks. */
export function webhooksDetail(health: WebhookHealth): Record<string, unknown> {
  const s = health.snapshot();
  return {
    completion: s.completion,
    received: s.received,
    missed: s.missed,
    fallbackPolls: s.fallbackPolls,
    since: new Date(s.since).toISOString(),
    ...(s.completion === 'polling'
      ? { hint: 'webhooks do not reach this daemon: check that SLUICE_PUBLIC_URL is reachable from the service' }
      : {}),
  };
}
