/** A batch's status as people read it (the CLI's `batch status` and the console alike): its view, final state and failure. */
import { type BatchState } from '../contracts';

/** A batch's workflow status and live state. */
export interface BatchView {
  workflowId: string;
  workflowStatus: string;
  state?: BatchState;
  failure?: string;
  /**
   * A step (or another activity of the batch) failing and being retried right now, as Temporal
   * reports its pending activity: a store that is down, a full disk. The state query cannot say
   * it (the workflow only learns of the step's end).
   */
  stepError?: { activity: string; attempt: number; message: string };
}

/** What a status needs of a batch's client: its view and its result (BatchClient, or the light BatchLiteClient of `batch start`). */
export interface BatchViews {
  view(id: string): Promise<BatchView>;
  /** The final state once the batch ends; rejects when it ended otherwise than completed. */
  result(id: string): Promise<BatchState>;
}

/** A pending activity as Temporal's describe reports it (the gRPC and HTTP answers share the field names). */
export interface PendingActivity {
  activityType?: { name?: string | null } | null;
  attempt?: number | null;
  lastFailure?: { message?: string | null } | null;
}

/** The first pending activity failing and being retried: the view's `stepError`. */
export function stepErrorOf(pending: readonly PendingActivity[] | null | undefined): BatchView['stepError'] {
  const failing = pending?.find((a) => a.lastFailure?.message);
  if (!failing) return undefined;
  return {
    activity: failing.activityType?.name ?? 'activity',
    attempt: failing.attempt ?? 0,
    message: failing.lastFailure!.message!,
  };
}

/**
 * The batch's view; a completed batch's state comes from its result (the summary in history) when
 * no daemon answers the query; a failed, terminated or timed-out one says why.
 */
export async function batchStatus(batch: BatchViews, id: string): Promise<BatchView> {
  const v = await batch.view(id);
  if (!v.state && v.workflowStatus === 'COMPLETED') v.state = await batch.result(id).catch(() => undefined);
  if (v.workflowStatus === 'FAILED' || v.workflowStatus === 'TERMINATED' || v.workflowStatus === 'TIMED_OUT') {
    v.failure = await batch.result(id).then(
      () => undefined,
      (err: unknown) => {
        const e = err as Error & { cause?: Error };
        return e.cause?.message ?? e.message;
      },
    );
  }
  return v;
}

/** Inputs that ended otherwise than COMPLETED. */
export const failedCount = (s: BatchState): number => s.counts.done - (s.counts.byStatus.COMPLETED ?? 0);
