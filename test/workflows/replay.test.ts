/** Recorded workflow histories (job, batch, scaling, scale-window and pipeline) replay against today's workflow code: a non-deterministic change fails here. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowBundle } from '../../worker/bundle';
import { historyFromJSON } from './history-json';

// Recorded by `npm run histories:record` (scripts/record-*histories.ts); see docs/orchestrator.md.
const root = join(__dirname, 'histories');
const filesOf = (kind: string) =>
  readdirSync(join(root, kind))
    .filter((f) => f.endsWith('.json'))
    .sort();

describe("workflow replay (recorded histories, the daemon's workflow bundle)", () => {
  it('has the representative histories', () => {
    expect(filesOf('job').map((f) => f.replace(/\.json$/, ''))).toEqual(
      expect.arrayContaining([
        'webhook-completed',
        'poll-completed',
        'runsync-completed',
        'stream-completed',
        'flaky-retried',
        'retry-refused-resubmitted',
        'all-attempts-failed',
        'cancelled-queued',
      ]),
    );
    expect(filesOf('batch').map((f) => f.replace(/\.json$/, ''))).toEqual(
      expect.arrayContaining([
        'mixed',
        'continued-as-new',
        'continued-as-new.run2',
        'paused-resumed',
        'key-capped',
        'cancelled',
        'retry-failed',
        'per-job-workflows',
        'per-job-workflows.run2',
        'per-job-retry-failed',
      ]),
    );
    // scripts/record-scaler-histories.ts (`npm run histories:record:scaler`).
    expect(filesOf('scaler').map((f) => f.replace(/\.json$/, ''))).toEqual(
      expect.arrayContaining([
        'burst-quiet-stopped',
        'messages',
        'continued-as-new',
        'continued-as-new.run2',
        'fallback',
        'drift-reassert',
        'backlog-pulled',
        'burst-quiet-warm-hold',
      ]),
    );
  });

  it("has the histories of a scale schedule's firing (scripts/record-scale-window-histories.ts)", () => {
    expect(filesOf('scale-window').map((f) => f.replace(/\.json$/, ''))).toEqual(
      expect.arrayContaining(['window', 'bounds']),
    );
  });

  it('has the histories of a pipeline and its stages, batches on an open feed (scripts/record-pipeline-histories.ts)', () => {
    expect(filesOf('pipeline').map((f) => f.replace(/\.json$/, ''))).toEqual(
      expect.arrayContaining([
        'fan-out-when',
        'fan-out-when.stage-parts',
        'fan-out-when.stage-joined',
        'rounds',
        'rounds.stage-parts',
        'rounds.stage-joined',
      ]),
    );
  });

  it.each(['job', 'batch', 'scaler', 'scale-window', 'pipeline'])(
    'replays every %s history without a determinism error',
    async (kind) => {
      // Replay errors are reported below, per history; the SDK need not log them as well.
      Runtime.install({
        logger: new DefaultLogger('ERROR'),
        telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
      });
      const files = filesOf(kind);
      // Replayed under the id it was recorded with (child workflow ids are derived from it), reported by file.
      const histories = files.map((f) => {
        const history = historyFromJSON(JSON.parse(readFileSync(join(root, kind, f), 'utf8')));
        return { workflowId: history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId || f, history };
      });
      const results: { workflowId: string; error?: string }[] = [];
      // Histories replay one after the other, in order.
      for await (const r of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
        const workflowId = files[results.length]!;
        results.push(r.error ? { workflowId, error: `${r.error.name}: ${r.error.message}` } : { workflowId });
      }
      expect(results).toEqual(files.map((workflowId) => ({ workflowId })));
    },
  );
});
