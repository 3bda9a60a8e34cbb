/**
 * The one shape of every `runX` of sluice/workflows: sluice's workflow of a kind started as a child
 * of the caller's workflow, on sluice's task queue, under an id derived from the caller's id and a
 * key, with its input parsed by the daemon first; cancelling the caller cancels the child.
 */
import {
  ApplicationFailure,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  executeChild,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import { FailureType, INPUT_ACTIVITIES, TASK_QUEUE, WORKFLOW_TYPES, childOfWorkflowId } from '../../contracts/names';
import type { InputActivities } from '../../activities/inputs';

/** Options of `runJob`, `runBatch`, `runPipeline`. */
export interface RunOptions {
  /**
   * sluice's task queue: the one its daemons poll (their `SLUICE_TASK_QUEUE`). The child workflow
   * and the activity that parses its input run there, never on the caller's own queue.
   * @default 'sluice'
   */
  taskQueue?: string;
}

/** A sluice orchestration a user's workflow can run: its name in WORKFLOW_TYPES and INPUT_ACTIVITIES. */
export type ChildKind = keyof typeof WORKFLOW_TYPES & keyof typeof INPUT_ACTIVITIES;

/** Longest key: the child id must stay readable (Temporal's own limit on ids is far above). */
const MAX_KEY = 200;

/**
 * Runs sluice's `kind` workflow as a child of the calling workflow and resolves with its result.
 * The child id is `<kind>/<caller's workflow id>/<key>` (childOfWorkflowId), so the same call in the
 * same workflow always names the same child; two calls with one key in one run are refused by
 * Temporal. The caller's cancellation cancels the child and waits for it (its remote jobs are
 * cancelled); if the caller is terminated or times out, the child is asked to cancel as well.
 */
export async function runChild<R>(kind: ChildKind, key: string, init: unknown, options: RunOptions = {}): Promise<R> {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY || /\s/.test(key))
    throw ApplicationFailure.nonRetryable(
      `the key of a ${kind} must be 1 to ${MAX_KEY} characters without spaces, got ${JSON.stringify(key)}`,
      FailureType.INVALID_INPUT,
    );
  const taskQueue = options.taskQueue ?? TASK_QUEUE;
  const inputs = proxyActivities<InputActivities>({ taskQueue, startToCloseTimeout: '1 minute' });
  const input = await inputs[INPUT_ACTIVITIES[kind]](init as never);
  return executeChild<(arg: typeof input) => Promise<R>>(WORKFLOW_TYPES[kind], {
    workflowId: childOfWorkflowId(kind, workflowInfo().workflowId, key),
    taskQueue,
    args: [input],
    cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
  });
}
