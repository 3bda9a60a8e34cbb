/** Error classes of the worker runtime. Each carries a literal `code` for matching. */

/** An environment variable or option is missing or malformed; the worker cannot start. */
export class ConfigError extends Error {
  readonly code = 'WORKER_CONFIG_INVALID' as const;
  override readonly name = 'ConfigError';
}

/** `--test_input` or `./test_input.json` is missing or malformed (local test mode). */
export class TestInputError extends Error {
  readonly code = 'TEST_INPUT_INVALID' as const;
  override readonly name = 'TestInputError';
}

/** A handler's input failed validation (thrown by {@link parseInput}). */
export class InputError extends Error {
  readonly code = 'JOB_INPUT_INVALID' as const;
  override readonly name = 'InputError';
}

/** A handler produced an output or chunk that `JSON.stringify` cannot encode. */
export class OutputNotSerializableError extends Error {
  readonly code = 'OUTPUT_NOT_SERIALIZABLE' as const;
  override readonly name = 'OutputNotSerializableError';
}

/** An HTTP call to the platform did not answer in time. */
export class RequestTimeoutError extends Error {
  readonly code = 'REQUEST_TIMEOUT' as const;
  override readonly name = 'RequestTimeoutError';
}

/** Abort reason of `job.signal` when the platform asked (via job-stop) to stop the job. */
export class JobStoppedError extends Error {
  readonly code = 'JOB_STOPPED' as const;
  override readonly name = 'JobStoppedError';
}

/** Abort reason of `job.signal` when the worker shuts down before the job finished. */
export class ShutdownError extends Error {
  readonly code = 'WORKER_SHUTDOWN' as const;
  override readonly name = 'ShutdownError';
}

/** The message of anything thrown: `Error.message` (or its name when empty), else a string form. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

/** A terse description for logs: message plus the system error code when there is one. */
export function describeError(err: unknown): string {
  const msg = errorMessage(err);
  const code =
    err instanceof Error
      ? ((err as { code?: unknown }).code ?? (err.cause as { code?: unknown } | undefined)?.code)
      : undefined;
  return typeof code === 'string' && !msg.includes(code) ? `${msg} (${code})` : msg;
}

/** One line from schema issues: `path: problem; ...` (path `input` when at the root). */
export function formatIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  root = 'input',
): string {
  return issues.map((i) => `${i.path.length > 0 ? i.path.map(String).join('.') : root}: ${i.message}`).join('; ');
}
