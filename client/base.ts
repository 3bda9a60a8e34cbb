/** What every orchestration's client shares: its options, the task queue, the results store, run lookup, a rerun's start. */
import {
  type Client,
  type Workflow,
  type WorkflowStartOptions,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { type RunScope } from '../contracts';
import { TASK_QUEUE } from '../contracts/names/common';
import { join } from 'node:path';
import { type ObjectStore } from '../results/store/object-store';
import { openResultsStore } from '../results/store/open';
import { firstPayloadValue } from './payloads';

/** Temporal's visibility names of the statuses the lists filter on. */
const VISIBILITY_STATUS: Record<string, string> = {
  RUNNING: 'Running',
  COMPLETED: 'Completed',
  FAILED: 'Failed',
  CANCELLED: 'Canceled',
  TERMINATED: 'Terminated',
  TIMED_OUT: 'TimedOut',
};

/** What the lists take: how many, a status (Temporal's name, RUNNING...), how many to skip first. */
export interface ListOptions {
  /** @default 100 */
  limit?: number;
  status?: string;
  /** @default 0 */
  skip?: number;
}

/** One workflow id as a list finds it (its latest run). */
export interface ListedWorkflow {
  workflowId: string;
  status: string;
  startTime: Date;
  closeTime?: Date;
}

export interface ClientOptions {
  client: Client;
  /**
   * The task queue the daemon polls.
   * @default 'sluice' (TASK_QUEUE)
   */
  taskQueue?: string;
  /**
   * The daemon's results dir: outputs, streams and batch outcomes are read there (when `resultsUrl` is not given).
   * @default '.data/results'
   */
  resultsDir?: string;
  /**
   * The daemon's results store as SLUICE_RESULTS_URL names it: `s3://bucket/prefix` (endpoint and
   * credentials from the standard AWS variables), `file:///dir` or a directory.
   * @default resultsDir
   */
  resultsUrl?: string;
}

/** The base of `JobClient` and `BatchClient`. */
export abstract class OrchestrationClient {
  protected readonly client: Client;
  protected readonly taskQueue: string;
  protected readonly store: ObjectStore;

  constructor(o: ClientOptions) {
    this.client = o.client;
    this.taskQueue = o.taskQueue ?? TASK_QUEUE;
    this.store = openResultsStore(o.resultsUrl ?? o.resultsDir ?? '.data/results');
  }

  /** Releases the results store's connections (S3); the Temporal client is the caller's to close. */
  async close(): Promise<void> {
    await this.store.close();
  }

  /** Where a key of the results store is, for people: a file path, or an s3:// URL. */
  protected locationOf(key: string): string {
    return this.store.kind === 'fs' ? join(this.store.url, key) : `${this.store.url}${key}`;
  }

  /** True when a workflow with this id exists. */
  protected async workflowExists(workflowId: string): Promise<boolean> {
    try {
      await this.client.workflow.getHandle(workflowId).describe();
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }

  /**
   * Workflows of `type` in the order Temporal lists them, the latest run of each id once, those
   * `keep` refuses left out before `skip` counts; at most `limit`.
   */
  protected async listLatest(
    type: string,
    o: ListOptions = {},
    keep: (workflowId: string) => boolean = () => true,
  ): Promise<ListedWorkflow[]> {
    const limit = o.limit ?? 100;
    const status =
      o.status && VISIBILITY_STATUS[o.status] ? ` AND ExecutionStatus = '${VISIBILITY_STATUS[o.status]}'` : '';
    const ids = new Set<string>();
    const out: ListedWorkflow[] = [];
    let skip = o.skip ?? 0;
    for await (const w of this.client.workflow.list({ query: `WorkflowType = '${type}'${status}` })) {
      if (w.status.name === 'CONTINUED_AS_NEW' || ids.has(w.workflowId) || !keep(w.workflowId)) continue;
      ids.add(w.workflowId);
      if (skip > 0 && skip--) continue;
      out.push({
        workflowId: w.workflowId,
        status: w.status.name,
        startTime: w.startTime,
        ...(w.closeTime ? { closeTime: w.closeTime } : {}),
      });
      if (out.length >= limit) break;
    }
    return out;
  }

  /** The latest run of a workflow id (its records are keyed by the first run id of its chain). */
  protected async runOf(workflowId: string): Promise<RunScope> {
    const d = await this.client.workflow.getHandle(workflowId).describe();
    return { workflowId, runId: d.raw.workflowExecutionInfo?.firstRunId || d.runId };
  }
}

/**
 * The workflow input of `workflowId`'s latest run, as its first history event holds it (continue-as-new
 * passes it on unchanged), decoded with the client's data converter (sealed when payloads are encrypted).
 */
export async function startInputOf<T>(client: Client, workflowId: string): Promise<T | undefined> {
  const first = (await client.workflow.getHandle(workflowId).fetchHistory()).events?.[0];
  return firstPayloadValue<T>(client, first?.workflowExecutionStartedEventAttributes?.input?.payloads);
}

/** Why a rerun is refused before it starts: no such workflow, a run still going (or started meanwhile), no outcome files. */
export type RerunRefusalKind = 'NOT_FOUND' | 'RUNNING' | 'NO_OUTCOMES';
/** Makes the orchestration's own error for a refused rerun. */
export type RerunRefuse = (kind: RerunRefusalKind, message: string) => Error;

/**
 * The run a rerun of `workflowId` re-runs: its status (COMPLETED or CANCELLED, the runs that wrote
 * their outcome files) and the first run id of its chain; any other state is `refuse`d.
 */
export async function endedRunOf(
  client: Client,
  workflowId: string,
  kind: string,
  refuse: RerunRefuse,
): Promise<{ status: string; runId: string }> {
  const d = await client.workflow
    .getHandle(workflowId)
    .describe()
    .catch((err: unknown) => {
      if (err instanceof WorkflowNotFoundError) throw refuse('NOT_FOUND', `no ${kind} ${workflowId}`);
      throw err;
    });
  const status = d.status.name;
  if (status === 'RUNNING')
    throw refuse('RUNNING', `${workflowId} is still running; rerun re-runs failed inputs once it has ended`);
  if (status !== 'COMPLETED' && status !== 'CANCELLED')
    throw refuse(
      'NO_OUTCOMES',
      `${workflowId} ended ${status} without writing its outcome files; there are no results to re-run from`,
    );
  return { status, runId: d.raw.workflowExecutionInfo?.firstRunId || d.runId };
}

/**
 * Starts a workflow of `workflowType` (a name in WORKFLOW_TYPES; `W` its function's type) as a
 * rerun: the same id once the previous run is closed; a run started meanwhile makes this fail,
 * `refuse`d as RUNNING. Resolves with the new run's id.
 */
export async function startRerun<W extends Workflow>(
  client: Client,
  workflowType: string,
  o: WorkflowStartOptions<W>,
  refuse: RerunRefuse,
): Promise<string> {
  const started = await client.workflow
    .start<W>(workflowType, { ...o, workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE })
    .catch((err: unknown) => {
      if (err instanceof WorkflowExecutionAlreadyStartedError)
        throw refuse('RUNNING', `${o.workflowId} is running again (started meanwhile); rerun waits for it to end`);
      throw err;
    });
  return started.firstExecutionRunId;
}
