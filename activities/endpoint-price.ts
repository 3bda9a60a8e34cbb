/** The price of one worker-hour of an endpoint: the mean `costPerHr` of its worker pods, read over REST and cached briefly. */
import { type RestClient } from '../platform-api';

/** Options of {@link endpointPrice}. */
export interface EndpointPriceOptions {
  /**
   * How long a price read (or the lack of one: no worker runs) is reused, ms.
   * @default 30000
   */
  ttlMs?: number;
}

/**
 * A lookup `(endpointId) => USD per worker-hour`, or undefined while the endpoint runs no worker
 * (a scaled-to-zero endpoint has no pod to read a price from; asked again after the ttl).
 */
export function endpointPrice(rest: Pick<RestClient, 'getEndpoint'>, o: EndpointPriceOptions = {}): (endpointId: string) => Promise<number | undefined> {
  const ttl = o.ttlMs ?? 30_000;
  const cache = new Map<string, { at: number; price: Promise<number | undefined> }>();
  return (endpointId) => {
    const hit = cache.get(endpointId);
    if (hit && Date.now() - hit.at < ttl) return hit.price;
    const price = rest.getEndpoint(endpointId, { workers: true }).then((e) => {
      const costs = (e.workers ?? []).map((w) => w.costPerHr).filter((c) => Number.isFinite(c) && c > 0);
      return costs.length > 0 ? Math.round((costs.reduce((a, b) => a + b, 0) / costs.length) * 10_000) / 10_000 : undefined;
    });
    // A failed read is not cached as a price: it is retried after the ttl like "no worker".
    cache.set(endpointId, { at: Date.now(), price: price.catch(() => undefined) });
    return cache.get(endpointId)!.price;
  };
}

/** The REST base of a queue base: given, the cloud's for api.runpod.ai, else the same host's `/v1`. */
export function restUrlFor(queueUrl: string, restUrl?: string): string {
  if (restUrl) return restUrl;
  const u = new URL(queueUrl);
  if (u.hostname === 'api.runpod.ai') return 'https://rest.runpod.io/v1';
  return `${u.origin}${u.pathname.replace(/\/v2\/?$/, '')}/v1`;
}
