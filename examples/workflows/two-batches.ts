/**
 * A user's own Temporal workflow composing sluice (docs/pipelines.md, "Your own workflows"): a
 * batch, its results aggregated by an activity of the user's own, then a second batch on the
 * aggregate. In a user's project the import is `from 'sluice/workflows'`.
 */
import { proxyActivities } from '@temporalio/workflow';
import { runBatch, type BatchState } from '../../workflows/entry';
import type { AggregateActivities } from './activities';

export interface TwoBatchesInput {
  /** The endpoint both batches run on (an echo handler in the test). */
  endpointId: string;
  /** The first batch's JSONL input: lines `{"input": {"n": <number>}}`; an absolute path or s3:// URL. */
  source: string;
  /** Where this workflow writes: `<workDir>/first`, `<workDir>/aggregate.jsonl`, `<workDir>/second`. */
  workDir: string;
  /** The aggregate's groups: input n goes to group n % groups. */
  groups: number;
  /** sluice's task queue, when its daemons poll another than `sluice`. */
  sluiceTaskQueue?: string;
}

export interface TwoBatchesResult {
  first: BatchState;
  /** Lines of the aggregate, the second batch's input. */
  aggregated: number;
  second: BatchState;
}

const { aggregate } = proxyActivities<AggregateActivities>({ startToCloseTimeout: '5 minutes' });

export async function twoBatches(input: TwoBatchesInput): Promise<TwoBatchesResult> {
  const on = input.sluiceTaskQueue ? { taskQueue: input.sluiceTaskQueue } : {};
  // The child batch/<this workflow's id>/first; cancelling this workflow cancels it.
  const first = await runBatch(
    'first',
    {
      endpointId: input.endpointId,
      source: input.source,
      outDir: `${input.workDir}/first`,
      options: { concurrency: 8 },
    },
    on,
  );
  const next = await aggregate({
    batchId: first.batchId,
    dest: `${input.workDir}/aggregate.jsonl`,
    groups: input.groups,
  });
  const second = await runBatch(
    'second',
    { endpointId: input.endpointId, source: next.file, outDir: `${input.workDir}/second` },
    on,
  );
  return { first, aggregated: next.lines, second };
}
