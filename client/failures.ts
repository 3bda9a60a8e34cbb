/** Reading Temporal failure chains: the message a person wants and the failure type a program matches. */

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
