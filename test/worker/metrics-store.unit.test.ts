/** The daemon's /metrics exposes the results store's own counters (requests by operation, bytes by direction). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openResultsStore } from '../../results/store/open';
import { DaemonMetrics } from '../../worker/metrics';

const sample = (text: string, name: string, labels: string): number | undefined => {
  const m = new RegExp(`^${name}\\{${labels}\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};

describe('store counters on /metrics', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-metrics-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are absent until a store is observed, then follow its stats at each scrape', async () => {
    const metrics = new DaemonMetrics();
    expect(await metrics.registry.metrics()).not.toMatch(/^sluice_store_requests_total\{/m);
    const store = openResultsStore(dir);
    metrics.observeStore(store.stats);
    await store.put('a/b.json', { hello: 'world' });
    let text = await metrics.registry.metrics();
    expect(sample(text, 'sluice_store_requests_total', 'op="write"')).toBe(1);
    expect(sample(text, 'sluice_store_bytes_total', 'dir="written"')).toBe(17);
    expect(sample(text, 'sluice_store_bytes_total', 'dir="read"')).toBe(0);
    expect(await store.get('a/b.json')).toEqual({ hello: 'world' });
    await store.append('log.jsonl', [1, 2]);
    text = await metrics.registry.metrics();
    expect(sample(text, 'sluice_store_requests_total', 'op="write"')).toBe(2);
    expect(sample(text, 'sluice_store_bytes_total', 'dir="read"')).toBe(17);
    expect(sample(text, 'sluice_store_bytes_total', 'dir="written"')).toBe(21);
    await store.close();
  });
});
