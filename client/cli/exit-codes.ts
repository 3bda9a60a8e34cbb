/** Exit codes of `sluice`. */
export const EXIT_CODES = {
  ok: 0,
  /** The job failed, timed out, expired, or the command failed. */
  failed: 1,
  usage: 2,
  cancelled: 3,
  /** `sluice result` of a job that is still running. */
  running: 4,
  /** Interrupted (Ctrl-C) while watching; the job goes on. */
  interrupted: 130,
} as const;
