/**
 * sluice worker runtime: the TypeScript counterpart of the RunPod Python worker SDK
 * (`runpod.serverless.start`). Call {@link serve} with a handler from the worker's entry file.
 *
 * @example
 * ```ts
 * import { serve, type Job } from '../../worker-sdk';
 * export const handler = (job: Job) => ({ echoed: job.input });
 * if (require.main === module) serve(handler).catch(() => process.exit(1));
 * ```
 */
export { serve } from './serve';
export type { Handler, HandlerResult, Job, ServeOptions } from './types';
export { parseInput } from './input';
export { log, setLogLevel, type LogLevel } from './log';
export {
  ConfigError,
  InputError,
  JobStoppedError,
  OutputNotSerializableError,
  RequestTimeoutError,
  ShutdownError,
  TestInputError,
  errorMessage,
} from './errors';
export { type WorkerConfig, loadConfig } from './config';
export { isStreamResult } from './execute';
export { RUNTIME_VERSION } from './ping';
