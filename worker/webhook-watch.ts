/**
 * The daemon's word on whether webhooks reach it: one warn line when an episode of lost webhooks
 * begins (naming `SLUICE_PUBLIC_URL`, the address the service calls) and one when it ends, however
 * often the state turns in between (under faults it turns back and forth many times a minute:
 * those turns go to debug), and the `/readyz` detail.
 */
import { type Logger } from 'pino';
import { WebhookHealth } from '../results/webhook-health';

/** How long webhooks must keep reaching a scope before its episode ends (and is said), ms. */
export const EPISODE_END_MS = 30_000;

/** An episode of a scope (the daemon, or a batch run): webhooks stopped at `since`, turned `turns` times to polling. */
interface Episode {
  since: number;
  turns: number;
  /** Set while webhooks reach the scope again: the episode's end, once they kept doing so. */
  ending?: NodeJS.Timeout;
}

/** The daemon's webhook health, saying each episode of lost webhooks once; `publicUrl` is read when it is said. */
export function webhookHealth(logger: Logger, publicUrl: () => string, endMs = EPISODE_END_MS): WebhookHealth {
  const episodes = new Map<string, Episode>();
  const where = (scope: string | undefined): string => (scope ? `batch ${scope} on ` : '');
  return new WebhookHealth({
    onChange: (healthy, scope, s) => {
      const key = scope ?? '';
      const batch = scope ? { batch: scope } : {};
      const e = episodes.get(key);
      if (!healthy && e) {
        clearTimeout(e.ending);
        e.ending = undefined;
        e.turns++;
        logger.debug({ ...batch, turns: e.turns }, 'webhooks stopped again (the same episode)');
      } else if (!healthy) {
        episodes.set(key, { since: Date.now(), turns: 1 });
        logger.warn(
          { ...batch, publicUrl: publicUrl(), missed: s.missed },
          `webhooks stopped reaching ${where(scope)}this daemon: its jobs are polled on /status instead (slower, more calls); check that SLUICE_PUBLIC_URL (${publicUrl()}) is reachable from the service`,
        );
      } else if (e) {
        logger.debug(
          { ...batch },
          `webhooks reach ${where(scope)}this daemon again; the episode ends in ${endMs} ms unless they stop`,
        );
        e.ending = setTimeout(() => {
          episodes.delete(key);
          const stoppedMs = Date.now() - endMs - e.since;
          logger.warn(
            { ...batch, publicUrl: publicUrl(), stoppedMs, turns: e.turns },
            `webhooks reach ${where(scope)}this daemon again (for ${endMs / 1000} s): jobs complete by webhook; they had stopped for ${(stoppedMs / 1000).toFixed(1)} s (${e.turns} turn${e.turns === 1 ? '' : 's'} to polling)`,
          );
        }, endMs);
        e.ending.unref();
      }
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
