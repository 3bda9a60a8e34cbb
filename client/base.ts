/** What every orchestration's client shares: its options, the task queue, the results store, run lookup. */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { TASK_QUEUE, type RunScope } from '../contracts';
import { FsResultsStore } from '../activities/results-store';

export interface ClientOptions {
  client: Client;
  /**
   * The task queue the daemon polls.
   * @default 'sluice' (TASK_QUEUE)
   */
  taskQueue?: string;
  /**
   * The daemon's results dir: outputs, streams and batch outcomes are read there.
   * @default '.data/results'
   */
  resultsDir?: string;
}

/** The base of `JobClient` and `BatchClient`. */
export abstract class OrchestrationClient {
  protected readonly client: Client;
  protected readonly taskQueue: string;
  protected readonly store: FsResultsStore;

  constructor(o: ClientOptions) {
    this.client = o.client;
    this.taskQueue = o.taskQueue ?? TASK_QUEUE;
    this.store = new FsResultsStore(o.resultsDir ?? '.data/results');
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
