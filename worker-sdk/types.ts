import { type Policy, type S3Config } from '../contracts/queue';
import { type TakenJob } from '../contracts/worker-protocol';

/** One job as a handler sees it. */
export interface Job<I = Record<string, unknown>> {
  /** Job id assigned by the platform. */
  id: string;
  /** The `input` of the submission, unvalidated (see {@link parseInput}). */
  input: I;
  /** Webhook URL of the submission, if any (the platform calls it, not the worker). */
  webhook?: string;
  /** Execution policy of the submission, if any (the platform enforces it). */
  policy?: Policy;
  /** S3 credentials of the submission, if any. */
  s3Config?: S3Config;
  /**
   * Aborts when the platform stops the job (reason {@link JobStoppedError}) or the worker shuts
   * down before it finished (reason {@link ShutdownError}). Once aborted, nothing the handler
   * returns or yields is delivered and no job-done is sent.
   */
  signal: AbortSignal;
  /**
   * Sends a progress update (`{"status":"IN_PROGRESS","output":output}` on job-done). Updates are
   * posted in order and before the final result. The promise resolves once the update is posted
   * or dropped and never rejects, so `void job.progress(x)` is safe. Ignored after the job ended.
   */
  progress(output: unknown): Promise<void>;
  /** The job exactly as job-take returned it, extra fields included. */
  raw: TakenJob;
}

/**
 * What a handler may return: a value (or promise of one) that becomes `output`, or an async
 * iterable / generator object whose items are streamed one by one. Arrays and strings are values.
 * A plain object with `refresh_worker: true` has that key removed and asks for the worker to be
 * replaced (`stopPod: true`).
 */
export type HandlerResult = unknown | Promise<unknown> | AsyncIterable<unknown> | Iterable<unknown>;

/** A job handler; throw (or reject) to fail the job with `{"error": message}`. */
export type Handler<I = Record<string, unknown>> = (job: Job<I>) => HandlerResult;

/** Options of {@link serve}. */
export interface ServeOptions {
  /**
   * Jobs run at the same time (with 1, take is polled only while idle).
   * @default 1
   */
  concurrency?: number;
  /**
   * Send all streamed chunks again as the final `output` (else the final output is `[]`).
   * @default false
   */
  returnAggregateStream?: boolean;
  /**
   * How long running jobs may finish after SIGTERM/SIGINT before they are abandoned.
   * @default 10000
   */
  shutdownGraceMs?: number;
  /** Environment to read; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Command-line arguments to scan for `--test_input`; default `process.argv.slice(2)`. */
  argv?: readonly string[];
  /** Stops the worker like SIGTERM does, when aborted. */
  signal?: AbortSignal;
  /**
   * Install SIGTERM/SIGINT handlers.
   * @default true
   */
  handleSignals?: boolean;
  /**
   * End the process when the worker stops (exit 0 after shutdown; in test mode 0 on success, 1 on
   * failure), right after the returned promise resolves; default true. When false only
   * `process.exitCode` is set.
   */
  exitProcess?: boolean;
}
