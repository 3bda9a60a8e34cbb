/** The library's batch orchestration: many jobs from a JSONL file, durably, through the batch workflow. */
import { WorkflowIdReusePolicy } from '@temporalio/client';
import { type BatchResultLine, type BatchState } from '../contracts';
import { BatchConfigure } from '../contracts/batch';
import { BATCH_QUERIES, BATCH_UPDATES, batchIdOf, batchWorkflowId } from '../contracts/names/batch';
import { WORKFLOW_TYPES } from '../contracts/names/common';
import { isStageBatchId } from '../contracts/names/pipeline';
import { openedInput, outputStore, valueLines } from '../results/batch/locations';
import { outcomesSoFar } from '../results/batch/outcomes';
import { mergedResults } from '../results/batch/rerun';
import { OrchestrationClient, type ClientOptions, type ListOptions } from './base';
import { batchInputOf, rerunFailed, type BatchRerun, type RerunFailedOptions } from './batch-rerun';
import { groupFailures, type FailureGroup, type GroupFailuresOptions } from './batch-failures';
import { batchStartOf, type BatchStart } from './batch-start';
import { stepErrorOf, type BatchView } from './batch-status';
// The workflow's type only: the client starts, queries and updates it by name (contracts/names), loading no workflow code.
import type { batchWorkflow } from '../workflows/batch/workflow';

/** Options of {@link BatchClient}. */
export type BatchClientOptions = ClientOptions;

export { type BatchStart, type BatchView };

/** One batch as {@link BatchClient.list} finds it (its latest run). */
export interface BatchListing {
  workflowId: string;
  batchId: string;
  /** RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT. */
  status: string;
  startTime: Date;
  closeTime?: Date;
}

/**
 * Batches from a pipeline: start, watch progress, pause, resume, reconfigure, cancel, rerun failed inputs, read results.
 * The `sluice batch` commands are built on it.
 */
export class BatchClient extends OrchestrationClient {
  constructor(o: BatchClientOptions) {
    super(o);
  }

  /**
   * Starts a batch; a local input file and output dir are made absolute (the daemon reads and
   * writes them); `s3://bucket/key` and `s3://bucket/prefix/` are taken as they are (endpoint and
   * credentials from the AWS variables, here and on the daemon). A missing input is refused here.
   */
  async start(init: BatchStart): Promise<string> {
    const { workflowId, input } = await batchStartOf(init);
    await this.client.workflow.start<typeof batchWorkflow>(WORKFLOW_TYPES.batch, {
      taskQueue: this.taskQueue,
      workflowId,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
    return workflowId;
  }

  /**
   * Re-runs the inputs of an ended batch that did not complete (FAILED, TIMED_OUT, JOB_EXPIRED;
   * with `includeCancelled` also CANCELLED and NOT_SUBMITTED) as a new run of the same batch id;
   * results.jsonl then holds the new outcome of each re-run input and the previous one of the
   * others. Refuses with a BatchRerunError (`code`) when the batch runs, does not exist or has
   * nothing to re-run. Watch it with `watch` / `result` like any batch. (`sluice batch rerun`.)
   */
  async rerunFailed(id: string, options: RerunFailedOptions = {}): Promise<BatchRerun> {
    return rerunFailed(this.client, this.taskQueue, id, options);
  }

  /** The batch's live state (counts, rates, ETA, spend, why it waits). */
  async state(id: string): Promise<BatchState> {
    return this.handle(id).query<BatchState>(BATCH_QUERIES.state);
  }

  /** Workflow status and state (the state of a closed batch comes from its summary.json when no daemon answers). */
  async view(id: string): Promise<BatchView> {
    const h = this.handle(id);
    const d = await h.describe();
    const view: BatchView = { workflowId: h.workflowId, workflowStatus: d.status.name };
    const stepError = stepErrorOf(d.raw.pendingActivities);
    if (stepError) view.stepError = stepError;
    try {
      view.state = await h.query<BatchState>(BATCH_QUERIES.state);
    } catch {
      // closed, and no daemon to answer
    }
    return view;
  }

  /** Stops new submissions; resolves once nothing more is submitted (in-flight jobs finish). */
  async pause(id: string): Promise<BatchState> {
    return this.handle(id).executeUpdate<BatchState, []>(BATCH_UPDATES.pause);
  }

  async resume(id: string): Promise<BatchState> {
    return this.handle(id).executeUpdate<BatchState, []>(BATCH_UPDATES.resume);
  }

  /** Live changes: concurrency, key cap, cost cap, deadline. */
  async configure(id: string, change: BatchConfigure): Promise<BatchState> {
    return this.handle(id).executeUpdate<BatchState, [BatchConfigure]>(BATCH_UPDATES.configure, {
      args: [BatchConfigure.parse(change)],
    });
  }

  /** Cancels the batch: in-flight jobs are cancelled, unsent inputs recorded NOT_SUBMITTED, outcome files written. */
  async cancel(id: string): Promise<void> {
    await this.handle(id).cancel();
  }

  /** Waits for the end; resolves with the final state (summary). */
  async result(id: string): Promise<BatchState> {
    return this.handle(id).result();
  }

  /** Yields the state every `everyMs` until the batch closes (the last one is the final state). */
  async *watch(id: string, everyMs = 1000): AsyncGenerator<BatchState> {
    const h = this.handle(id);
    for (;;) {
      const d = await h.describe();
      const s = await h.query<BatchState>(BATCH_QUERIES.state).catch(() => undefined);
      if (s) yield s;
      if (d.status.name !== 'RUNNING') return;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }

  /** Outcomes so far: results.jsonl once the batch ended, else what its steps have written. */
  async *results(id: string): AsyncGenerator<BatchResultLine> {
    const h = this.handle(id);
    const d = await h.describe();
    const input = await batchInputOf(this.client, h.workflowId);
    const out = input?.outDir ? outputStore(input.outDir) : undefined;
    if (d.status.name !== 'RUNNING' && out && (await out.has('results.jsonl'))) {
      for await (const line of valueLines(out, 'results.jsonl')) yield line as BatchResultLine;
      return;
    }
    const run = { workflowId: h.workflowId, runId: d.raw.workflowExecutionInfo?.firstRunId || d.runId };
    // A rerun: the previous outcomes of the inputs it does not re-run, then its own so far.
    if (input?.retryOf && out) yield* mergedResults(this.store, run, out, input.retryOf.attempt);
    else yield* outcomesSoFar(this.store, run);
  }

  /** The inputs that did not complete, grouped by error type, with a few examples and their input lines. */
  async failures(id: string, o: GroupFailuresOptions = {}): Promise<FailureGroup[]> {
    const input = await batchInputOf(this.client, batchWorkflowId(id));
    return groupFailures(this.results(id), input ? openedInput(input.source) : undefined, o);
  }

  /**
   * Batches in the order Temporal lists them, one per batch id (runs that continued as new are left out); at most
   * `limit`, after `skip` (paging), of one `status` when given (RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED,
   * TIMED_OUT). Temporal's visibility is eventually consistent: a batch just started may be missing.
   * `stages: false` leaves out the batches of pipeline stages.
   */
  async list(o: ListOptions & { stages?: boolean } = {}): Promise<BatchListing[]> {
    const keep = o.stages === false ? (id: string) => !isStageBatchId(id) : undefined;
    const listed = await this.listLatest(WORKFLOW_TYPES.batch, o, keep);
    return listed.map((w) => ({ ...w, batchId: batchIdOf(w.workflowId) }));
  }

  /** True when a batch with this id exists. */
  async exists(id: string): Promise<boolean> {
    return this.workflowExists(batchWorkflowId(id));
  }

  private handle(id: string) {
    return this.client.workflow.getHandle<typeof batchWorkflow>(batchWorkflowId(id));
  }
}
