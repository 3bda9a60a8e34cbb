/** What every orchestration's client shares: its options, the task queue, the results store, run lookup. */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { type RunScope } from '../contracts';
import { TASK_QUEUE } from '../contracts/names/common';
import { join } from 'node:path';
import { type ObjectStore } from '../results/store/object-store';
import { openResultsStore } from '../results/store/open';

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

  /** The latest run of a workflow id (its records are keyed by the first run id of its chain). */
  protected async runOf(workflowId: string): Promise<RunScope> {
    const d = await this.client.workflow.getHandle(workflowId).describe();
    return { workflowId, runId: d.raw.workflowExecutionInfo?.firstRunId || d.runId };
  }
}
