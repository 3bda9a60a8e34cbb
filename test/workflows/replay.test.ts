/** Recorded job workflow histories replay against today's workflow code: a non-deterministic change fails here. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowBundle } from '../../worker/bundle';
import { historyFromJSON } from './history-json';

const dir = join(__dirname, 'histories', 'job');
// Recorded by `npm run histories:record` (scripts/record-histories.ts); see docs/orchestrator.md.
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

describe('job workflow replay (recorded histories, the daemon\'s workflow bundle)', () => {
  it('has the representative histories', () => {
    expect(files.map((f) => f.replace(/\.json$/, ''))).toEqual(expect.arrayContaining([
      'webhook-completed', 'poll-completed', 'runsync-completed', 'stream-completed',
      'flaky-retried', 'retry-refused-resubmitted', 'all-attempts-failed', 'cancelled-queued',
    ]));
  });

  it('replays every history without a determinism error', async () => {
    // Replay errors are reported below, per history; the SDK need not log them as well.
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
    const histories = files.map((f) => ({ workflowId: f, history: historyFromJSON(JSON.parse(readFileSync(join(dir, f), 'utf8'))) }));
    const results: { workflowId: string; error?: string }[] = [];
    for await (const r of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
      results.push(r.error ? { workflowId: r.workflowId, error: `${r.error.name}: ${r.error.message}` } : { workflowId: r.workflowId });
    }
    expect(results).toEqual(files.map((workflowId) => ({ workflowId })));
  });
});
