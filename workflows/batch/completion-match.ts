/**
 * Which job in flight a completion is the outcome of: a record of an earlier run of the same remote
 * job (a late or duplicated webhook of the run that `/retry` replaced) is not the retry's outcome. Pure.
 *
 * The rule (`exact`, the runs recorded since `BATCH_PATCHES.staleCompletions`):
 * - A record counts its run by `retries` (the `/retry`s of its id before it; absent reads as 0: the
 *   local platform writes it only when > 0). It is the outcome of the entry of its id when it counts
 *   at least the entry's `/retry`s (a later run than the ledger knows of: a `/retry` whose answer was
 *   lost); one counting fewer is of an earlier run, and ignored.
 * - The answer to a `/status` poll the workflow ordered (`q`) is the outcome whatever it counts: the
 *   poll was sent after the entry's `/retry` was answered, so it reads the job's current run. That is
 *   how a retried job ends on a service whose records do not count runs (the spec's status has no
 *   `retries`), as the job workflow's fallback poll does (docs/orchestrator.md).
 * Before it, a completion whose count differed matched its id anyway (the stale-completion hazard).
 */
import type { Completion } from '../../activities/batch/types';
import type { InFlight } from './ledger';

/** The entry of `inFlight` completion `c` is the outcome of, if any. */
export function ownerOf(inFlight: InFlight[], c: Completion, exact: boolean): InFlight | undefined {
  if (!exact) return inFlight.find((x) => x.id === c.id && x.r === c.r) ?? inFlight.find((x) => x.id === c.id);
  const f = inFlight.find((x) => x.id === c.id);
  if (!f) return undefined;
  return c.r >= f.r || c.q === 1 ? f : undefined;
}
