/**
 * The inputs of sluice's job and batch workflows when a user's own workflow runs them
 * (sluice/workflows): parsed and given their defaults by the same schemas the library uses, here
 * on sluice's daemon, since workflow code carries no zod. A refused input fails, not retried, with
 * INVALID_INPUT and the fields at fault.
 */
import { isAbsolute } from 'node:path';
import { type z } from 'zod';
import {
  BatchWorkflowInput,
  JobWorkflowInput,
  type BatchWorkflowInputInit,
  type JobWorkflowInputInit,
} from '../contracts';
import { FailureType, INPUT_ACTIVITIES } from '../contracts/names';
import { isS3Location } from '../results/batch/locations';
import { fatal } from './errors';

/** The input activities, by the names sluice/workflows calls them. */
export interface InputActivities {
  [INPUT_ACTIVITIES.job]: (init: JobWorkflowInputInit) => Promise<JobWorkflowInput>;
  [INPUT_ACTIVITIES.batch]: (init: BatchWorkflowInputInit) => Promise<BatchWorkflowInput>;
}

export function createInputActivities(): InputActivities {
  return {
    [INPUT_ACTIVITIES.job]: async (init) => parsed(JobWorkflowInput, init, 'job'),
    [INPUT_ACTIVITIES.batch]: async (init) => {
      // A rerun is the library's (`rerunFailed`): its reference is never a caller's to give.
      const { retryOf: _rerun, ...rest } = init;
      const input = parsed(BatchWorkflowInput, rest, 'batch');
      // A workflow has no working directory: a relative path would mean the daemon's.
      for (const [field, at] of [
        ['source', input.source],
        ['outDir', input.outDir],
      ] as const)
        if (!isS3Location(at) && !isAbsolute(at))
          throw fatal(
            FailureType.INVALID_INPUT,
            `invalid batch input: ${field}: must be an absolute path or an s3:// URL, got ${JSON.stringify(at)}`,
          );
      return input;
    },
  };
}

function parsed<S extends z.ZodType>(schema: S, init: unknown, what: string): z.infer<S> {
  const r = schema.safeParse(init);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`);
  throw fatal(FailureType.INVALID_INPUT, `invalid ${what} input: ${issues.join('; ')}`);
}
