/** The early-webhook table: bounded in entries and bytes, oldest dropped first (and said), entries kept their time. */
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { DaemonMetrics } from '../../worker/metrics';
import { EarlyWebhooks, loggedDrops, type EarlyWebhook } from '../../worker/early-webhooks';

const entry = (id: string, at = 0, output: unknown = 'x'): EarlyWebhook => ({
  outcome: { remoteJobId: id, status: 'COMPLETED', observedAt: at, via: 'webhook', output },
  at,
  workflowId: `wf-${id}`,
  activityId: `await/${id}/0`,
  nextTryAt: 0,
  busy: false,
});

describe('early webhooks', () => {
  it('keeps at most maxEntries, dropping the oldest first and telling of each drop', () => {
    const dropped: string[] = [];
    const t = new EarlyWebhooks({
      maxEntries: 3,
      onDrop: (e, bound) => dropped.push(`${e.outcome.remoteJobId}:${bound}`),
    });
    for (const id of ['a', 'b', 'c', 'd', 'e']) t.set(id, entry(id));
    expect(t.size).toBe(3);
    expect(dropped).toEqual(['a:entries', 'b:entries']);
    expect(['a', 'b', 'c', 'd', 'e'].map((k) => t.get(k)?.outcome.remoteJobId)).toEqual([
      undefined,
      undefined,
      'c',
      'd',
      'e',
    ]);
  });

  it('keeps at most maxBytes of outcomes, dropping the oldest first; a taken entry frees its bytes', () => {
    const dropped: string[] = [];
    const t = new EarlyWebhooks({
      maxBytes: 10_000,
      onDrop: (e, bound) => dropped.push(`${e.outcome.remoteJobId}:${bound}`),
    });
    const big = 'y'.repeat(3000);
    for (const id of ['a', 'b', 'c']) t.set(id, entry(id, 0, big));
    expect(dropped).toEqual([]);
    const three = t.bytes;
    expect(three).toBeGreaterThan(9000);
    t.set('d', entry('d', 0, big));
    expect(dropped).toEqual(['a:bytes']);
    expect(t.bytes).toBeLessThanOrEqual(10_000);
    t.delete('b');
    t.delete('c');
    t.delete('d');
    expect([t.size, t.bytes]).toEqual([0, 0]);
  });

  it('a key set again counts once, as the newest', () => {
    const dropped: string[] = [];
    const t = new EarlyWebhooks({ maxEntries: 2, onDrop: (e) => dropped.push(e.outcome.remoteJobId) });
    t.set('a', entry('a'));
    t.set('b', entry('b'));
    t.set('a', entry('a'));
    t.set('c', entry('c'));
    expect(dropped).toEqual(['b']);
    expect(t.size).toBe(2);
  });

  it('drops an entry kept its full time without telling, and returns the others oldest first', () => {
    const dropped: string[] = [];
    const t = new EarlyWebhooks({ keepMs: 1000, onDrop: (e) => dropped.push(e.outcome.remoteJobId) });
    t.set('old', entry('old', 0));
    t.set('new', entry('new', 900));
    expect(t.expire(1500).map(([k]) => k)).toEqual(['new']);
    expect(t.get('old')).toBeUndefined();
    expect(dropped).toEqual([]);
  });

  it("the daemon's drops: each counted in sluice_early_webhooks_dropped_total, one warn line for a burst", async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (l: string) => lines.push(l) });
    const metrics = new DaemonMetrics();
    const t = new EarlyWebhooks({ maxEntries: 2, onDrop: loggedDrops(logger, metrics) });
    for (let n = 0; n < 7; n++) t.set(`k${n}`, entry(`j${n}`));
    expect(await metrics.registry.metrics()).toMatch(/sluice_early_webhooks_dropped_total\{bound="entries"\} 5/);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      bound: 'entries',
      msg: expect.stringMatching(/early-webhook table full/),
    });
  });
});
