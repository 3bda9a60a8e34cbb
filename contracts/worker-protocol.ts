import { z } from 'zod';
import { Policy, S3Config } from './queue';

/**
 * The worker protocol of the stock RunPod worker SDK (job-take, job-done, job-stream,
 * job-stop, ping), as both the platform and the TypeScript worker runtime speak it.
 */

/** A job handed to a worker by `job-take`. Extra fields reach the handler. */
export const TakenJob = z.looseObject({
  id: z.string(),
  input: z.unknown(),
  webhook: z.string().optional(),
  policy: Policy.optional(),
  s3Config: S3Config.optional(),
});
export type TakenJob = z.infer<typeof TakenJob>;

/**
 * Body of `job-done`. `status: "IN_PROGRESS"` marks a progress update; `error` (any JSON)
 * marks a failure; `stopPod` asks for the worker to be replaced after this job.
 */
export const JobDoneBody = z.looseObject({
  output: z.unknown().optional(),
  error: z.unknown().optional(),
  status: z.string().optional(),
  stopPod: z.boolean().optional(),
});
export type JobDoneBody = z.infer<typeof JobDoneBody>;

/** Body of `job-stream`: one chunk. */
export const JobStreamBody = z.looseObject({ output: z.unknown() });
export type JobStreamBody = z.infer<typeof JobStreamBody>;

/** Answer of `job-stop` when something must stop. */
export const JobStopAnswer = z.object({ jobsToStop: z.array(z.string()) });
export type JobStopAnswer = z.infer<typeof JobStopAnswer>;

/** Environment variables a worker process receives (names of the stock SDK). */
export const WORKER_ENV = {
  takeUrl: 'RUNPOD_WEBHOOK_GET_JOB',
  doneUrl: 'RUNPOD_WEBHOOK_POST_OUTPUT',
  streamUrl: 'RUNPOD_WEBHOOK_POST_STREAM',
  pingUrl: 'RUNPOD_WEBHOOK_PING',
  podId: 'RUNPOD_POD_ID',
  endpointId: 'RUNPOD_ENDPOINT_ID',
  apiKey: 'RUNPOD_AI_API_KEY',
  pingInterval: 'RUNPOD_PING_INTERVAL',
} as const;
