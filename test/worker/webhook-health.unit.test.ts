/** The webhook health's misses in a row (results/webhook-health.ts): lost webhooks among arriving ones turn nothing. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebhookHealth } from '../../results/webhook-health';

describe('webhook health: misses in a row', () => {
  afterEach(() => vi.useRealTimers());

  it('misses swept together, with webhooks heard after their jobs finished, are isolated losses: still webhooks', () => {
    vi.useFakeTimers({ now: 100_000 });
    const h = new WebhookHealth();
    // Three jobs finished 300 ms ago, their webhooks lost; webhooks of other jobs came since.
    for (const id of ['a', 'b', 'c']) h.polledDone(id, 'wf', 300);
    vi.advanceTimersByTime(100);
    h.received('x', 'wf');
    vi.advanceTimersByTime(500);
    expect(h.healthy('wf')).toBe(true);
    expect(h.snapshot().missed).toBe(3);
  });

  it('three misses with no webhook after their jobs finished turn the scope to polling; two webhooks turn it back', () => {
    vi.useFakeTimers({ now: 100_000 });
    const h = new WebhookHealth();
    h.received('x', 'wf');
    vi.advanceTimersByTime(100);
    for (const id of ['a', 'b', 'c']) h.polledDone(id, 'wf', 0);
    vi.advanceTimersByTime(600);
    expect(h.healthy('wf')).toBe(false);
    h.received('y', 'wf');
    h.received('z', 'wf');
    expect(h.healthy('wf')).toBe(true);
  });
});
