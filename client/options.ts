/** Options every orchestration's client shares: the Temporal client, the task queue, the results dir. */
import { type Client } from '@temporalio/client';

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
