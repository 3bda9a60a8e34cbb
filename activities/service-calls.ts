import { BudgetWithdrawnError, type QueueClient, isPlatformApiError } from '../platform-api';
import { type ActivityMetrics } from '../common/metrics';

export type QueueMethods = Pick<QueueClient, 'run' | 'runSync' | 'status' | 'stream' | 'cancel' | 'retry' | 'health'>;

/**
 * The queue client as activities use it: every call counted by operation and outcome, so the
 * daemon's metrics show HTTP calls per job and 429s.
 */
export function countedQueue(queue: QueueMethods, metrics: ActivityMetrics): QueueMethods {
  const wrap =
    <A extends unknown[], R>(op: string, fn: (...a: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        const r = await fn(...args);
        metrics.httpCall(op, 'ok');
        return r;
      } catch (err) {
        // Withdrawn from the rate budget's queue: never sent, so no HTTP call.
        if (!(err instanceof BudgetWithdrawnError)) metrics.httpCall(op, isPlatformApiError(err) ? err.code : 'ERROR');
        throw err;
      }
    };
  return {
    run: wrap('run', queue.run.bind(queue)),
    runSync: wrap('runsync', queue.runSync.bind(queue)),
    status: wrap('status', queue.status.bind(queue)),
    stream: wrap('stream', queue.stream.bind(queue)),
    cancel: wrap('cancel', queue.cancel.bind(queue)),
    retry: wrap('retry', queue.retry.bind(queue)),
    health: wrap('health', queue.health.bind(queue)),
  };
}
