/**
 * A batch step heartbeats every second whatever it is doing (activities/batch/collect.ts), with the
 * last detail it gave, so its 3 s heartbeat timeout says its daemon died, not that a phase was long.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { beat, keepBeating, KEEP_ALIVE_MS } from '../../activities/heartbeat';

describe('keepBeating', () => {
  afterEach(() => vi.useRealTimers());

  it('repeats the last detail every second while the step runs, and stops when told', async () => {
    vi.useFakeTimers();
    const env = new MockActivityEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    await env.run(async () => {
      const stop = keepBeating();
      beat({ seq: 3, phase: 'submit' });
      // A long phase that beats nothing itself (a slow poll, a store write).
      await vi.advanceTimersByTimeAsync(3.5 * KEEP_ALIVE_MS);
      expect(beats).toEqual([1, 2, 3, 4].map(() => ({ seq: 3, phase: 'submit' })));
      beat({ seq: 3, phase: 'collect' });
      await vi.advanceTimersByTimeAsync(KEEP_ALIVE_MS);
      expect(beats.at(-1)).toEqual({ seq: 3, phase: 'collect' });
      const n = beats.length;
      stop();
      await vi.advanceTimersByTimeAsync(5 * KEEP_ALIVE_MS);
      expect(beats).toHaveLength(n);
    });
  });

  it('is a no-op outside an activity', () => {
    expect(() => keepBeating()()).not.toThrow();
  });
});
