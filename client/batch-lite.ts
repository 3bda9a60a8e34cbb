/**
 * A batch's start, view and result through temporal-lite.ts: what `sluice batch start` needs,
 * without the full Temporal client (issue 23). The same workflow, id and input as BatchClient's.
 */
import { type BatchState } from '../contracts/batch';
import { BATCH_QUERIES, batchWorkflowId } from '../contracts/names/batch';
import { WORKFLOW_TYPES } from '../contracts/names/common';
import { type BatchStart } from './batch-start';
import { stepErrorOf, type BatchView, type BatchViews } from './batch-status';
import { TemporalLite } from './temporal-lite';

export class BatchLiteClient implements BatchViews {
  private readonly temporal: TemporalLite;

  constructor(private readonly o: { address: string; namespace: string; taskQueue: string }) {
    this.temporal = new TemporalLite(o.address, o.namespace);
  }

  /** As {@link BatchClient.start}; a taken id rejects with a GrpcError of code 6 (already exists). */
  async start(init: BatchStart): Promise<string> {
    // The workflow input's schema (zod) loads here, not with this module: the connect and the endpoint's lookup go first.
    const { batchStartOf } = await import('./batch-start');
    const { workflowId, input } = await batchStartOf(init);
    await this.temporal.start({
      workflowId,
      type: WORKFLOW_TYPES.batch,
      taskQueue: this.o.taskQueue,
      args: [input],
      rejectDuplicate: true,
    });
    return workflowId;
  }

  /** As {@link BatchClient.view}: the workflow's status, a failing step, the live state when a daemon answers. */
  async view(id: string): Promise<BatchView> {
    const workflowId = batchWorkflowId(id);
    const d = await this.temporal.describe(workflowId);
    const view: BatchView = { workflowId, workflowStatus: d.status };
    const stepError = stepErrorOf(d.pendingActivities);
    if (stepError) view.stepError = stepError;
    try {
      view.state = await this.temporal.query<BatchState>(workflowId, BATCH_QUERIES.state);
    } catch {
      // closed, and no daemon to answer
    }
    return view;
  }

  /** As {@link BatchClient.result}: the final state once the batch ends. */
  result(id: string): Promise<BatchState> {
    return this.temporal.result<BatchState>(batchWorkflowId(id));
  }

  /** Connects to Temporal now, ahead of the first call (its handshake overlaps the caller's work). */
  connect(): void {
    this.temporal.connect();
  }

  close(): void {
    this.temporal.close();
  }
}
