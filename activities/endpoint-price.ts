/** The price of one worker-hour of an endpoint: the mean `costPerHr` of its worker pods, read over REST and cached briefly. */
import { type RestClient } from '../platform-api';

/** Options of {@link endpointPrice}. */
export interface EndpointPriceOptions {
  /**
   * How long a price read (or the lack of one: no worker runs) is reused, ms.
   * @default 30000
   */
  ttlMs?: number;
  /**
   * How long "no price yet" (no worker runs, or the read failed) is reused, ms: a batch's first
   * jobs start workers within seconds.
   * @default 3000
   */
  unknownTtlMs?: number;
}

/**
 * A lookup `(endpointId) => USD per worker-hour`, or undefined while the endpoint runs no worker
 * (a scaled-to-zero endpoint has no pod to read a price from; asked again after `unknownTtlMs`).
 */
export function endpointPrice(
  rest: Pick<RestClient, 'getEndpoint'>,
  o: EndpointPriceOptions = {},
): (endpointId: string) => Promise<number | undefined> {
  const ttl = o.ttlMs ?? 30_000;
  const unknownTtl = o.unknownTtlMs ?? 3000;
  const cache = new Map<string, { at: number; price: Promise<number | undefined>; known?: boolean }>();
  return (endpointId) => {
    const hit = cache.get(endpointId);
    if (hit && Date.now() - hit.at < (hit.known ? ttl : unknownTtl)) return hit.price;
    const price = rest.getEndpoint(endpointId, { workers: true }).then((e) => {
      const costs = (e.workers ?? []).map((w) => w.costPerHr).filter((c) => Number.isFinite(c) && c > 0);
      return costs.length > 0
        ? Math.round((costs.reduce((a, b) => a + b, 0) / costs.length) * 10_000) / 10_000
        : undefined;
    });
    const entry: { at: number; price: Promise<number | undefined>; known?: boolean } = {
      at: Date.now(),
      price: price.catch(() => undefined),
    };
    void entry.price.then((p) => (entry.known = p !== undefined));
    cache.set(endpointId, entry);
    return entry.price;
  };
}

/** The REST base of a queue base: given, the cloud's for api.runpod.ai, else the same host's `/v1`. */
export function restUrlFor(queueUrl: string, restUrl?: string): string {
  if (restUrl) return restUrl;
  const u = new URL(queueUrl);
  if (u.hostname === 'api.runpod.ai') return 'https://rest.runpod.io/v1';
  return `${u.origin}${u.pathname.replace(/\/v2\/?$/, '')}/v1`;
}
