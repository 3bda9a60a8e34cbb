/**
 * A pipeline activity heartbeats every second whatever it is doing (activities/pipeline/activities.ts),
 * so its 3 s heartbeat timeout (workflows/pipeline/workflow.ts) says its daemon died, not that a call was slow.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPipelineActivities } from '../../activities/pipeline/activities';
import { KEEP_ALIVE_MS } from '../../activities/heartbeat';
import { openResultsStore } from '../../results/store/open';

describe("a pipeline activity's heartbeats", () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.useRealTimers();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('go on every second through a call that beats nothing itself, and stop with the activity', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-pipeline-beating-'));
    dirs.push(dir);
    vi.useFakeTimers();
    // The open's check of a stage's endpoint: an answer 3.5 s late, then a failure (no input file needed).
    const health = () =>
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer')), 3.5 * KEEP_ALIVE_MS));
    const acts = createPipelineActivities({ store: openResultsStore(join(dir, 'results')), queue: { health } });
    const env = new MockActivityEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    const req = { source: join(dir, 'in.jsonl'), outDir: join(dir, 'out'), endpoints: ['e1'] };
    const opening = env.run(acts.openPipeline, req as Parameters<typeof acts.openPipeline>[0]);
    const failed = expect(opening).rejects.toThrow('no answer');
    await vi.advanceTimersByTimeAsync(3.5 * KEEP_ALIVE_MS);
    await failed;
    // One at the start, then one a second while the call waits.
    expect(beats).toEqual([0, 1, 2, 3].map(() => ({ opening: true })));
    await vi.advanceTimersByTimeAsync(5 * KEEP_ALIVE_MS);
    expect(beats).toHaveLength(4);
  });
});
