/** `runJob`: one remote job, durably, as a child job workflow of a user's workflow (sluice/workflows). */
import { ApplicationFailure, ChildWorkflowFailure } from '@temporalio/workflow';
import { JOB_END_FAILURE } from '../../contracts/names';
import type { JobWorkflowInputInit, JobWorkflowResult } from '../../contracts/job';
import { runChild, type RunOptions } from './run-child';

/** What `runJob` takes: the library's job input (`sluice.job.start`), options given their defaults by the daemon. */
export type RunJobInput = Omit<JobWorkflowInputInit, 'line'>;

/**
 * Runs one job through sluice's job workflow, as the child `job/<this workflow's id>/<key>`, and
 * resolves with its result once the remote job ended: COMPLETED, or FAILED / TIMED_OUT / CANCELLED
 * on the service after its last attempt (look at `status`). A big output is in the results store
 * (`outputRef`): read it in an activity with the library (`sluice.job.output(result)`). Rejects
 * with Temporal's ChildWorkflowFailure for anything else: this workflow cancelled (the job is
 * cancelled first), the job expired, the endpoint unknown, an input refused (INVALID_INPUT).
 */
export async function runJob(key: string, input: RunJobInput, options?: RunOptions): Promise<JobWorkflowResult> {
  try {
    return await runChild<JobWorkflowResult>('job', key, input, options);
  } catch (err) {
    const result = endedJobResult(err);
    if (result) return result;
    throw err;
  }
}

/** The result a job workflow fails with when its remote job did not complete (as the library's `jobResultOf`). */
function endedJobResult(err: unknown): JobWorkflowResult | undefined {
  if (!(err instanceof ChildWorkflowFailure) || !(err.cause instanceof ApplicationFailure)) return undefined;
  const ends: readonly string[] = Object.values(JOB_END_FAILURE);
  if (!err.cause.type || !ends.includes(err.cause.type)) return undefined;
  return err.cause.details?.[0] as JobWorkflowResult | undefined;
}
