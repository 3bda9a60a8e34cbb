/** The fault mode's option (`PlatformOptions.faults`): seeded rates of misbehaviour of the client-facing APIs and webhooks. */
import { z } from 'zod';
import { FaultSpecError } from './errors';

const rate = z.number().min(0).max(1);
/** A range of milliseconds, `[min, max]`, min <= max. */
const range = z
  .tuple([z.number().int().min(0), z.number().int().min(0)])
  .refine(([min, max]) => min <= max, 'the range must be min-max with min <= max');

/** The client-facing APIs faults can apply to; the worker protocol never. */
export const FAULT_APIS = ['queue', 'rest', 'graphql'] as const;
export type FaultApi = (typeof FAULT_APIS)[number];

/**
 * Options of the fault mode. Every rate is a probability per request (or per webhook), 0 to 1; the
 * HTTP faults exclude each other (one draw per request), as do the webhook faults, so each group's
 * rates may add up to at most 1. Everything defaults to off.
 */
export const FaultsOptions = z
  .object({
    /**
     * Seed of the draws: the same seed and the same sequence of requests give the same faults.
     * @default 1
     */
    seed: z.number().int().default(1),
    /**
     * APIs the HTTP faults apply to.
     * @default ['queue'] (`/v2/{endpoint}/run`, `runsync`, `status`, `stream`, `cancel`, ...)
     */
    apis: z.array(z.enum(FAULT_APIS)).min(1).default(['queue']),
    /** 429 with `Retry-After`, the request not processed. @default 0 */
    rateLimited: rate.default(0),
    /** The `Retry-After` of a fault 429, seconds. @default 1 */
    retryAfterSeconds: z.number().int().min(0).default(1),
    /** 502 with an HTML page (as a proxy sends), the request not processed. @default 0 */
    badGateway: rate.default(0),
    /** The connection reset before any processing. @default 0 */
    resetBefore: rate.default(0),
    /** The request processed (its effect committed), then the connection reset instead of the answer. @default 0 */
    resetAfter: rate.default(0),
    /** The request processed at once, its answer written a time in `delayMs` after it came. @default 0 */
    delay: rate.default(0),
    /** @default [1000, 4000] */
    delayMs: range.default([1000, 4000]),
    /** A job's webhook never sent. @default 0 */
    webhookLost: rate.default(0),
    /** A job's webhook sent twice. @default 0 */
    webhookDuplicate: rate.default(0),
    /** A job's webhook sent after a time in `webhookDelayMs`. @default 0 */
    webhookDelay: rate.default(0),
    /** @default [500, 3000] */
    webhookDelayMs: range.default([500, 3000]),
    /** The receiver gets the webhook, the platform sees a reset (so it retries as after any failure). @default 0 */
    webhookReset: rate.default(0),
  })
  .strict()
  .refine((o) => o.rateLimited + o.badGateway + o.resetBefore + o.resetAfter + o.delay <= 1, {
    message: 'the HTTP fault rates (429, 502, reset-before, reset-after, delay) add up to more than 1',
  })
  .refine((o) => o.webhookLost + o.webhookDuplicate + o.webhookDelay + o.webhookReset <= 1, {
    message: 'the webhook fault rates add up to more than 1',
  });

/** What the caller gives (every field optional). */
export type FaultsInput = z.input<typeof FaultsOptions>;
/** The parsed options, defaults applied. */
export type Faults = z.output<typeof FaultsOptions>;

/** Parses `input` (a spec already read, or an options object of a test); a {@link FaultSpecError} names the bad field. */
export function parseFaults(input: FaultsInput): Faults {
  const r = FaultsOptions.safeParse(input);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const field = issue.path.join('.');
  throw new FaultSpecError(`faults${field ? `.${field}` : ''}: ${issue.message}`, field || undefined);
}

/** The faults that are on, as a short text for the start log and banner, e.g. `seed=7 apis=queue 429=0.05 retry-after=1 delay=0.05:1000-4000`; '' when none. */
export function describeFaults(f: Faults): string {
  const on: string[] = [];
  const add = (name: string, r: number, extra = ''): void => void (r > 0 && on.push(`${name}=${r}${extra}`));
  add('429', f.rateLimited);
  if (f.rateLimited > 0) on.push(`retry-after=${f.retryAfterSeconds}`);
  add('502', f.badGateway);
  add('reset-before', f.resetBefore);
  add('reset-after', f.resetAfter);
  add('delay', f.delay, `:${f.delayMs.join('-')}`);
  add('webhook-lost', f.webhookLost);
  add('webhook-duplicate', f.webhookDuplicate);
  add('webhook-delay', f.webhookDelay, `:${f.webhookDelayMs.join('-')}`);
  add('webhook-reset', f.webhookReset);
  return on.length ? [`seed=${f.seed}`, `apis=${f.apis.join('+')}`, ...on].join(' ') : '';
}
