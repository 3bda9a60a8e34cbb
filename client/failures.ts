/** Reading Temporal failure chains: the message a person wants and the failure type a program matches. */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { type JobWorkflowResult } from '../contracts';
import { JOB_END_FAILURE } from '../contracts/names/failures';

/** The innermost message of a Temporal failure chain (what a person wants to read). */
export function failureMessage(err: unknown): string {
  let e = err as { message?: string; cause?: unknown; type?: string } | undefined;
  let msg = e?.message ?? String(err);
  while (e?.cause) {
    e = e.cause as typeof e;
    if (e?.message) msg = e.type ? `${e.type}: ${e.message}` : e.message;
  }
  return msg;
}

/** The failure type (`ApplicationFailure.type`, e.g. JOB_EXPIRED) in a Temporal failure chain. */
export function failureType(err: unknown): string | undefined {
  let e = err as { cause?: unknown; type?: string; name?: string } | undefined;
  let type: string | undefined;
  while (e) {
    if (e.type) type = e.type;
    if (e.name === 'CancelledFailure') type ??= 'CANCELLED';
    e = e.cause as typeof e;
  }
  return type;
}

/**
 * The job result a failed job workflow carries: a remote job that ended FAILED, TIMED_OUT or
 * CANCELLED after its last attempt fails the workflow with that result as its failure's details.
 */
export function jobResultOf(err: unknown): JobWorkflowResult | undefined {
  if (!(err instanceof WorkflowFailedError) || !(err.cause instanceof ApplicationFailure)) return undefined;
  const ends: readonly string[] = Object.values(JOB_END_FAILURE);
  if (!err.cause.type || !ends.includes(err.cause.type)) return undefined;
  return err.cause.details?.[0] as JobWorkflowResult | undefined;
}
