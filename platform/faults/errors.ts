/** Errors of the fault mode, each with a stable literal `code`. */

/** A `--faults` spec (or a `faults` option) that cannot be read; the message names the bad part. */
export class FaultSpecError extends Error {
  readonly code = 'FAULT_SPEC' as const;
  constructor(
    message: string,
    /** The part of the spec at fault, e.g. `429=2`. */
    readonly part?: string,
  ) {
    super(message);
    this.name = 'FaultSpecError';
  }
}
