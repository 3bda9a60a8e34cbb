/** How the scaler workflow reads an activity's failure: its message in words and its failure type. */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';

/** The failure's message: the activity's own (not "Activity task failed") when an activity failed. */
export const errorOf = (err: unknown): string =>
  err instanceof ActivityFailure && err.cause ? err.cause.message : err instanceof Error ? err.message : String(err);

/** The failure type an activity failed with (e.g. ENDPOINT_NOT_FOUND), if any. */
export const typeOf = (err: unknown): string | undefined =>
  err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? (err.cause.type ?? undefined) : undefined;
