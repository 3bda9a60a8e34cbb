/**
 * The scaler under faults of its own calls: the platform's seeded fault mode on the queue API
 * (`/health`) and on GraphQL (the bounds' reads and `saveEndpoint` writes) answers 429s, 502s and
 * resets before and after processing. The scaler keeps ticking and deciding (a failed read is a
 * held tick with its reason), raises the bounds for a burst and lowers them after it, and every
 * bounds change the platform records is one the scaler decided, in its order: a save is repeated
 * with the same values only when the answer to it was lost (a reset after processing).
 */
import { describe, expect, it } from 'vitest';
import { ScalerClient } from '../../client/scaler';
import { type Bounds, type Decision, type ScalerOptionsInput } from '../../contracts';
import { call, eventually, waitForStatus } from '../helpers/platform';
import { livePods, PATIENCE, sleepEndpoint } from '../scaler/helpers';
import { faultyStack } from './helpers';

const FAULTS = {
  seed: 19,
  apis: ['queue', 'graphql'] as ('queue' | 'graphql')[],
  rateLimited: 0.1,
  retryAfterSeconds: 1,
  badGateway: 0.1,
  resetBefore: 0.05,
  resetAfter: 0.1,
};

const quick: ScalerOptionsInput = {
  intervalMs: 500,
  stabilizationWindowMs: 3000,
  cooldownMs: 4000,
  minWriteGapMs: 1000,
  ceiling: 4,
  scaleUp: { workers: 4 },
};

/** Submits `n` sleep jobs to the faulty platform, each retried under its idempotency key until answered. */
async function submitThrough(url: string, key: string, endpointId: string, n: number, ms: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const headers = { 'idempotency-key': `scaler-faults-${i}` };
      const r = await eventually(async () => {
        const res = await call(url, 'POST', `/v2/${endpointId}/run`, { key, headers, body: { input: { ms } } });
        return res.status === 200 ? res : undefined;
      }, PATIENCE);
      return r!.body.id as string;
    }),
  );
}

const same = (a: Bounds, b: Bounds) => a.workersMin === b.workersMin && a.workersMax === b.workersMax;

describe('the scaler under faults of /health and GraphQL', () => {
  it('keeps deciding, raises and lowers the bounds, and the platform records only the bounds it decided, in order', async () => {
    const s = await faultyStack({ faults: FAULTS });
    const scaling = new ScalerClient({ client: s.env.client, resultsDir: s.resultsDir });
    try {
      const ep = sleepEndpoint(s, 'scaler-faults', { workersMin: 0, workersMax: 1 });
      // Every save of the endpoint's bounds the platform commits, in order.
      const saved: Bounds[] = [];
      s.platform.registry.on('endpoint', (e) => {
        if (e.id === ep) saved.push({ workersMin: e.workersMin, workersMax: e.workersMax });
      });
      // Every decision the scaler logs (the status keeps the last 20: polled often, kept here by tick).
      const decisions = new Map<string, Decision>();
      let ticks = 0;
      const poll = async () => {
        const st = await scaling.status(ep);
        ticks = st.ticks;
        for (const d of st.decisions) decisions.set(`${d.tick ?? 'n'}:${d.at}:${d.kind}`, d);
        return st;
      };
      await scaling.start(ep, quick);
      await eventually(async () => (await poll()).ticks >= 3, PATIENCE, 100);

      const ids = await submitThrough(s.platform.url, s.platform.apiKey, ep, 4, 3000);
      const raised = (await eventually(
        async () => (await poll()).decisions.find((d) => d.write && d.bounds.workersMax >= 4),
        PATIENCE,
        100,
      ))!;
      await eventually(() => livePods(s, ep).length >= 2, PATIENCE);
      for (const id of ids) await waitForStatus(s.platform.url, ep, id, ['COMPLETED'], PATIENCE);
      const lowered = await eventually(
        async () =>
          (await poll()).decisions.find(
            (d) =>
              d.write &&
              d.at > raised.at &&
              (d.bounds.workersMin < raised.bounds.workersMin || d.bounds.workersMax < raised.bounds.workersMax),
          ),
        PATIENCE,
        100,
      );
      const ticksThen = ticks;
      await eventually(async () => (await poll()).ticks >= ticksThen + 3, PATIENCE, 100);

      // The faults did reach the scaler's calls. GraphQL's always do; /health is asked a few times a
      // tick only, and a short run on a slow machine may meet none of its faults (seen in a fresh-clone run).
      const faults = s.log.faultUrls;
      const gqlFaults = faults.filter((f) => f.url.startsWith('/graphql'));
      expect(gqlFaults.length, 'faults of GraphQL').toBeGreaterThan(0);

      // Every bounds value the platform took was decided by the scaler, in the order decided.
      const written = [...decisions.values()].filter((d) => d.write).sort((a, b) => a.at - b.at);
      const changes = saved.filter((b, i) => i === 0 || !same(b, saved[i - 1]!));
      let k = 0;
      for (const c of changes) {
        while (k < written.length && !same(written[k]!.bounds, c)) k++;
        expect(k, `platform bounds ${JSON.stringify(c)} not decided (in order) by the scaler`).toBeLessThan(
          written.length,
        );
      }
      expect(written).toContainEqual(raised);
      expect(written).toContainEqual(lowered);
      // A save repeated with the same values only where an answer was lost after the platform processed it.
      const repeats = saved.length - changes.length;
      const lostAnswers = gqlFaults.filter((f) => f.fault === 'reset-after').length;
      expect(repeats, `${repeats} repeated saves, ${lostAnswers} GraphQL answers lost`).toBeLessThanOrEqual(
        lostAnswers,
      );
    } finally {
      await s.dispose();
    }
  });
});
