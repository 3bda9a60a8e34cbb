/** The library's job orchestration: one remote job, durably, through the job workflow. */
import { randomUUID } from 'node:crypto';
import {
  type JobRecord,
  type JobWorkflowInputInit,
  type JobWorkflowResult,
  type JobWorkflowState,
  type OutputRef,
  type RunScope,
} from '../contracts';
import { JobWorkflowInput } from '../contracts/job';
import { WORKFLOW_TYPES } from '../contracts/names/common';
import { JOB_QUERIES, jobWorkflowId } from '../contracts/names/job';
import { streamPrefix } from '../contracts/names/results';
import { type StoreEntry } from '../results/store/object-store';
import { type QueueClient } from '../platform-api';
// The workflow's type only: the client starts and queries it by name (contracts/names), loading no workflow code.
import type { jobWorkflow } from '../workflows/job';
import { failureMessage, jobResultOf } from './failures';
import { OrchestrationClient, type ClientOptions } from './base';
import { firstPayloadValue } from './payloads';

/** Options of {@link JobClient}. */
export interface JobClientOptions extends ClientOptions {
  /** A queue client for the service: `state()` then also reads the remote job's live status. */
  queue?: Pick<QueueClient, 'status'>;
}

/** What `state()` tells about a job. */
export interface JobView {
  workflowId: string;
  /** Temporal's status of the workflow: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, ... */
  workflowStatus: string;
  /** The workflow's own state (query); absent when the workflow is closed and not queryable. */
  state?: JobWorkflowState;
  /** Latest progress output of the running job, from the waiting activity's heartbeat. */
  progress?: unknown;
  /** The remote job's live record (status, progress output) while the workflow runs. */
  remote?: JobRecord;
  /** Result once completed. */
  result?: JobWorkflowResult;
  /** Failure message when the workflow failed. */
  failure?: string;
}

/** One job workflow as {@link JobClient.recent} lists it. */
export interface JobListing {
  workflowId: string;
  status: string;
  endpointId?: string;
  startTime: Date;
  closeTime?: Date;
}

/**
 * Job workflows from a pipeline: start them, watch them, await or stream their results, cancel
 * them. The `sluice run|status|cancel|result` commands are built on it.
 */
export class JobClient extends OrchestrationClient {
  private readonly queue?: Pick<QueueClient, 'status'>;

  constructor(o: JobClientOptions) {
    super(o);
    if (o.queue) this.queue = o.queue;
  }

  /** Starts a job workflow; options get their defaults here (the workflow sees them all). */
  async start(init: JobWorkflowInputInit & { id?: string }): Promise<string> {
    const { id, ...rest } = init;
    const input = JobWorkflowInput.parse(rest);
    const workflowId = jobWorkflowId(id ?? randomUUID());
    // The endpoint in the memo: `recent()` (the console's endpoint page) finds its jobs without a query each.
    const memo = { endpointId: input.endpointId };
    await this.client.workflow.start<typeof jobWorkflow>(WORKFLOW_TYPES.job, {
      taskQueue: this.taskQueue,
      workflowId,
      args: [input],
      memo,
    });
    return workflowId;
  }

  /**
   * Waits for the job's result: COMPLETED, or FAILED / TIMED_OUT / CANCELLED after the last
   * attempt (the workflow then failed with JOB_FAILED, JOB_TIMED_OUT or JOB_CANCELLED, and the
   * result is its failure's details). Rejects with any other failure (cancelled, expired, ...).
   */
  async result(workflowId: string): Promise<JobWorkflowResult> {
    try {
      return await this.client.workflow.getHandle<typeof jobWorkflow>(workflowId).result();
    } catch (err) {
      const result = jobResultOf(err);
      if (result) return result;
      throw err;
    }
  }

  /** The job's workflow status, live state, progress and (when done) result. */
  async state(workflowId: string): Promise<JobView> {
    const handle = this.client.workflow.getHandle<typeof jobWorkflow>(workflowId);
    const d = await handle.describe();
    const view: JobView = { workflowId, workflowStatus: d.status.name };
    try {
      view.state = await handle.query<JobWorkflowState>(JOB_QUERIES.state);
    } catch {
      // Closed workflows without a worker to answer: the result below says enough.
    }
    const beat = await firstPayloadValue<{ progress?: unknown } | null>(
      this.client,
      d.raw.pendingActivities?.[0]?.heartbeatDetails?.payloads,
    ).catch(() => undefined); // Not a payload this client can read: not ours.
    if (beat && typeof beat === 'object') view.progress = beat.progress;
    if (d.status.name === 'RUNNING' && view.state?.remoteJobId && this.queue) {
      view.remote = await this.queue.status(view.state.endpointId, view.state.remoteJobId).catch(() => undefined);
      if (view.remote?.status === 'IN_PROGRESS' && view.remote.output !== undefined)
        view.progress ??= view.remote.output;
    }
    if (d.status.name === 'COMPLETED') view.result = await handle.result();
    else if (d.status.name !== 'RUNNING') {
      try {
        await handle.result();
      } catch (err) {
        const result = jobResultOf(err);
        if (result) view.result = result;
        view.failure = failureMessage(err);
      }
    }
    return view;
  }

  /** Requests cancellation; the workflow cancels the remote job and ends CANCELLED. */
  async cancel(workflowId: string): Promise<void> {
    await this.client.workflow.getHandle(workflowId).cancel();
  }

  /** The job's output, loaded from the results store when it was too big for history. */
  async output(result: Pick<JobWorkflowResult, 'output' | 'outputRef'>): Promise<unknown> {
    return result.outputRef ? this.store.get(result.outputRef) : result.output;
  }

  /** The stream chunks drained for the job (in order). */
  async chunks(ref: OutputRef | undefined): Promise<unknown[]> {
    return ref ? this.store.lines(ref.key) : [];
  }

  /** Every stream chunk stored for the job's latest run so far, in order (earlier attempts first). */
  async streamChunks(workflowId: string): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const key of await this.streamKeys(await this.runOf(workflowId))) out.push(...(await this.store.lines(key)));
    return out;
  }

  /** The files (or s3:// objects) holding the job's stream chunks (JSON lines, one per attempt). */
  async streamFiles(workflowId: string): Promise<string[]> {
    return (await this.streamKeys(await this.runOf(workflowId))).map((key) => this.locationOf(key));
  }

  /** The stream logs of a run, oldest first (one per remote run of the job). */
  private async streamKeys(run: RunScope): Promise<string[]> {
    const entries: StoreEntry[] = [];
    let after: string | undefined;
    do {
      const page = await this.store.list(streamPrefix(run), after === undefined ? {} : { after });
      entries.push(...page.entries);
      after = page.next;
    } while (after !== undefined);
    return entries.sort((a, b) => a.created - b.created || (a.key < b.key ? -1 : 1)).map((e) => e.key);
  }

  /**
   * Follows a streaming job: yields each chunk as the daemon stores it, until the workflow
   * closes. Chunks of earlier attempts come first, in order.
   */
  async *follow(workflowId: string, pollMs = 200): AsyncGenerator<unknown> {
    // Per stream log, the position read up to: each poll reads only what was appended since.
    const read = new Map<string, number>();
    for (;;) {
      const d = await this.client.workflow.getHandle(workflowId).describe();
      const closed = d.status.name !== 'RUNNING';
      for (const key of await this.streamKeys({
        workflowId,
        runId: d.raw.workflowExecutionInfo?.firstRunId || d.runId,
      })) {
        const t = await this.store.tail(key, read.get(key) ?? 0);
        for (const chunk of t.lines) yield chunk;
        read.set(key, t.at);
      }
      if (closed) return;
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  /**
   * The latest job workflows, newest first (of one endpoint when given: those started by this library, whose
   * memo names it); at most `limit` of the last `scan`.
   */
  async recent(o: { endpointId?: string; limit?: number; scan?: number } = {}): Promise<JobListing[]> {
    const out: JobListing[] = [];
    let scanned = 0;
    for await (const w of this.client.workflow.list({ query: `WorkflowType = '${WORKFLOW_TYPES.job}'` })) {
      if (++scanned > (o.scan ?? 500) || out.length >= (o.limit ?? 20)) break;
      const endpointId = (w.memo as { endpointId?: unknown } | undefined)?.endpointId;
      if (o.endpointId && endpointId !== o.endpointId) continue;
      out.push({
        workflowId: w.workflowId,
        status: w.status.name,
        startTime: w.startTime,
        ...(typeof endpointId === 'string' ? { endpointId } : {}),
        ...(w.closeTime ? { closeTime: w.closeTime } : {}),
      });
    }
    return out;
  }

  /** True when a workflow with this id exists. */
  async exists(workflowId: string): Promise<boolean> {
    return this.workflowExists(workflowId);
  }
}
