/** Recorded workflow histories (job, batch and scaling) replay against today's workflow code: a non-deterministic change fails here. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowBundle } from '../../worker/bundle';
import { historyFromJSON } from './history-json';

// Recorded by `npm run histories:record` (scripts/record-*histories.ts); see docs/orchestrator.md.
const root = join(__dirname, 'histories');
const filesOf = (kind: string) => readdirSync(join(root, kind)).filter((f) => f.endsWith('.json')).sort();

describe('workflow replay (recorded histories, the daemon\'s workflow bundle)', () => {
  it('has the representative histories', () => {
    expect(filesOf('job').map((f) => f.replace(/\.json$/, ''))).toEqual(expect.arrayContaining([
      'webhook-completed', 'poll-completed', 'runsync-completed', 'stream-completed',
      'flaky-retried', 'retry-refused-resubmitted', 'all-attempts-failed', 'cancelled-queued',
    ]));
    expect(filesOf('batch').map((f) => f.replace(/\.json$/, ''))).toEqual(expect.arrayContaining([
      'mixed', 'continued-as-new', 'continued-as-new.run2', 'paused-resumed', 'key-capped', 'cancelled',
    ]));
    // scripts/record-scaling-histories.ts (`npm run histories:record:scaling`).
    expect(filesOf('scaling').map((f) => f.replace(/\.json$/, ''))).toEqual(expect.arrayContaining([
      'burst-quiet-stopped', 'messages', 'continued-as-new', 'continued-as-new.run2', 'fallback', 'drift-reassert', 'backlog-pulled',
    ]));
  });

  it.each(['job', 'batch', 'scaling'])('replays every %s history without a determinism error', async (kind) => {
    // Replay errors are reported below, per history; the SDK need not log them as well.
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
    const files = filesOf(kind);
    const histories = files.map((f) => ({ workflowId: f, history: historyFromJSON(JSON.parse(readFileSync(join(root, kind, f), 'utf8'))) }));
    const results: { workflowId: string; error?: string }[] = [];
    for await (const r of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
      results.push(r.error ? { workflowId: r.workflowId, error: `${r.error.name}: ${r.error.message}` } : { workflowId: r.workflowId });
    }
    expect(results).toEqual(files.map((workflowId) => ({ workflowId })));
  });
});
