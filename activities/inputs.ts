/**
 * The inputs of sluice's job, batch and pipeline workflows when a user's own workflow runs them
 * (sluice/workflows): parsed and given their defaults by the same schemas the library uses, here
 * on sluice's daemon, since workflow code carries no zod. A refused input fails, not retried, with
 * INVALID_INPUT and the fields at fault (a pipeline's definition: every issue with its stage, field
 * and position, its expressions compiled here).
 */
import { isAbsolute } from 'node:path';
import { type z } from 'zod';
import {
  BatchWorkflowInput,
  JobWorkflowInput,
  PipelineWorkflowInput,
  describeIssue,
  validatePipeline,
  type BatchWorkflowInputInit,
  type JobWorkflowInputInit,
  type PipelineRunInput,
} from '../contracts';
import { FailureType, INPUT_ACTIVITIES } from '../contracts/names';
import { isS3Location } from '../results/batch/locations';
import { fatal } from './errors';

/** The input activities, by the names sluice/workflows calls them. */
export interface InputActivities {
  [INPUT_ACTIVITIES.job]: (init: JobWorkflowInputInit) => Promise<JobWorkflowInput>;
  [INPUT_ACTIVITIES.batch]: (init: BatchWorkflowInputInit) => Promise<BatchWorkflowInput>;
  [INPUT_ACTIVITIES.pipeline]: (init: PipelineRunInput) => Promise<PipelineWorkflowInput>;
}

export function createInputActivities(): InputActivities {
  return {
    [INPUT_ACTIVITIES.job]: async (init) => parsed(JobWorkflowInput, init, 'job'),
    [INPUT_ACTIVITIES.batch]: async (init) => {
      // A rerun is the library's (`rerunFailed`): its reference is never a caller's to give.
      const { retryOf: _rerun, ...rest } = init;
      return locatedAbsolutely(parsed(BatchWorkflowInput, rest, 'batch'), 'batch');
    },
    [INPUT_ACTIVITIES.pipeline]: async (init) => {
      // A rerun is the library's (`sluice.pipeline.rerun`): its reference is never a caller's to give.
      const { definition, endpoints, rerunOf: _rerun, ...rest } = init as PipelineRunInput & { rerunOf?: unknown };
      const v = validatePipeline(definition);
      if (!v.ok)
        throw fatal(
          FailureType.INVALID_INPUT,
          `invalid pipeline definition: ${v.issues.map((i) => describeIssue(i)).join('; ')}`,
        );
      // No endpoints given: each stage's `endpoint` is its id (as the library's default).
      const ids = endpoints ?? v.definition.stages.map((st) => st.endpoint);
      const input = parsed(PipelineWorkflowInput, { ...rest, definition: v.definition, endpoints: ids }, 'pipeline');
      if (input.endpoints.length !== input.definition.stages.length)
        throw fatal(
          FailureType.INVALID_INPUT,
          `invalid pipeline input: endpoints: one per stage (${input.definition.stages.length}), got ${input.endpoints.length}`,
        );
      return locatedAbsolutely(input, 'pipeline');
    },
  };
}

/** A workflow has no working directory: a relative path would mean the daemon's. */
function locatedAbsolutely<I extends { source: string; outDir: string }>(input: I, what: string): I {
  for (const [field, at] of [
    ['source', input.source],
    ['outDir', input.outDir],
  ] as const)
    if (!isS3Location(at) && !isAbsolute(at))
      throw fatal(
        FailureType.INVALID_INPUT,
        `invalid ${what} input: ${field}: must be an absolute path or an s3:// URL, got ${JSON.stringify(at)}`,
      );
  return input;
}

function parsed<S extends z.ZodType>(schema: S, init: unknown, what: string): z.infer<S> {
  const r = schema.safeParse(init);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`);
  throw fatal(FailureType.INVALID_INPUT, `invalid ${what} input: ${issues.join('; ')}`);
}
