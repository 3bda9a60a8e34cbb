/** The rows of issue 19's table as the platform's seeded faults, shared by the batch and the job workflow's fault tests. */
import { expect } from 'vitest';
import { type FaultsInput } from '../../platform';
import { daemonCounter, type FaultCase, type FaultyStack } from './helpers';

export const SEED = 19;
export const ALL: FaultsInput = {
  seed: SEED,
  rateLimited: 0.03,
  badGateway: 0.05,
  resetBefore: 0.03,
  resetAfter: 0.05,
  delay: 0.05,
  webhookLost: 0.08,
  webhookDuplicate: 0.08,
  webhookDelay: 0.08,
  webhookReset: 0.04,
};

export const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

/** A row: its faults, and the fault kinds the platform must have applied (so the row cannot pass fault-free). */
export interface Row extends FaultCase {
  name: string;
  kinds: string[];
}

export const ROWS: Row[] = [
  { name: '429s with Retry-After 1', faults: { seed: SEED, rateLimited: 0.05, retryAfterSeconds: 1 }, kinds: ['429'] },
  { name: 'every webhook lost (public URL unreachable)', unreachable: true, kinds: [] },
  { name: "8 % of jobs' webhooks lost", faults: { seed: SEED, webhookLost: 0.08 }, kinds: ['webhook-lost'] },
  {
    name: '4 % of calls answered 1 to 4 s late',
    faults: { seed: SEED, delay: 0.04, delayMs: [1000, 4000] },
    kinds: ['delay'],
  },
  {
    name: '502s and resets before the answer',
    faults: { seed: SEED, badGateway: 0.05, resetBefore: 0.03 },
    kinds: ['502', 'reset-before'],
  },
  { name: 'resets after the service answered', faults: { seed: SEED, resetAfter: 0.05 }, kinds: ['reset-after'] },
  {
    name: 'webhooks duplicated, delayed, reset after delivery',
    faults: { seed: SEED, webhookDuplicate: 0.08, webhookDelay: 0.08, webhookReset: 0.04 },
    kinds: ['webhook-duplicate', 'webhook-delay', 'webhook-reset'],
  },
  { name: 'all faults together', faults: ALL, kinds: ['429', '502', 'reset-after', 'delay', 'webhook-lost'] },
];

/** The row's faults did happen: each kind applied by the platform; with no public URL, no webhook received. */
export async function expectFaultsHappened(s: FaultyStack, row: Row): Promise<void> {
  for (const k of row.kinds) expect(s.log.faults[k] ?? 0, `platform faults "${k}"`).toBeGreaterThan(0);
  if (row.unreachable) {
    expect(sum(await daemonCounter(s, 'sluice_webhooks_total', 'result'))).toBe(0);
    expect(s.log.messages['webhook call failed'] ?? 0).toBeGreaterThan(0);
  }
}
