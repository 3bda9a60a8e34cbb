/**
 * What a step reports of earlier steps' *submitting* inputs (activities/batch/detached.ts): answered,
 * refused, deferred or still open, by what it can know (docs/batch.md "Late answers"); and the jobs
 * that webhooks matched to their input before the `/run` answer came (the URL's claim).
 */
import { batchKeys } from '../../contracts/names';
import { type RunScope } from '../../contracts';
import { type InboxRecord } from '../../results/batch/inbox';
import { type ObjectStore } from '../../results/store/object-store';
import { GRACE_MS, type DetachedSubmissions, type Settled } from './detached';
import { type Journaled } from './submitter';
import { type LineRef, type StepResult, type Submitting } from './types';

/** The first submissions (attempt 1) whose finished job came by webhook to their own URL: input to job id. */
export function claimedJobs(records: InboxRecord[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const r of records) if (r.claim?.a === 1) out.set(r.claim.i, r.id);
  return out;
}

/**
 * Reports the earlier submissions whose answer is known now: from this daemon's memory when it runs
 * the call, else from the sending step's journal; a call abandoned, failed, or not journaled by its
 * deadline (its daemon died) comes back deferred, to be sent again with the same idempotency key.
 * `reported` hears of each job so reported: its webhook or a poll may have ended it already, and
 * handed its record to a step before the workflow knew the job (in-flight.ts `recheck`).
 */
export async function reportSubmitting(
  store: ObjectStore,
  run: RunScope,
  sg: Submitting[],
  res: StepResult,
  detach: DetachedSubmissions | undefined,
  reported: (id: string, dup?: boolean) => void,
  byWebhook: Map<number, string> = new Map(),
): Promise<void> {
  const journals = new Map<number, Map<number, Journaled>>();
  const journal = async (q: number) => {
    let j = journals.get(q);
    if (!j) {
      const lines = (await store.lines(batchKeys.submitJournal(run, q))) as Journaled[];
      journals.set(q, (j = new Map(lines.filter((x) => x.a === 1).map((x) => [x.i, x]))));
    }
    return j;
  };
  for (const x of sg) {
    const ref: LineRef = { i: x.i, o: x.o, l: x.l, ...(x.k !== undefined ? { k: x.k } : {}) };
    let s: Settled | undefined;
    const hooked = byWebhook.get(x.i);
    if (hooked !== undefined) {
      // Its job's webhook came first (the URL names the input): answered by it; its call's answer changes nothing.
      s = { id: hooked };
      if (detach && x.dm === detach.id) detach.settle(run, x.i, s);
    } else if (detach && x.dm === detach.id) {
      s = detach.get(run, x.i);
      // Its abort did not end it in time (should not happen): lost, and a late answer is ignored.
      if (s === undefined && Date.now() >= x.dl + GRACE_MS) detach.settle(run, x.i, (s = 'lost'));
    } else {
      const hit = (await journal(x.q)).get(x.i);
      s = hit ? { id: hit.id, ...(hit.dup ? { dup: true } : {}) } : Date.now() >= x.dl + GRACE_MS ? 'lost' : undefined;
    }
    if (s === undefined) continue; // still running
    if (detach && x.dm === detach.id) detach.reported(run, x.i);
    if (s === 'lost' || s === 'deferred') res.deferred.push(ref);
    else if ('error' in s) res.rejected.push({ i: x.i, error: s.error });
    else {
      res.submitted.push({ ...ref, id: s.id, ...(s.dup ? { dup: true } : {}) });
      if (hooked === undefined) reported(s.id, s.dup);
    }
  }
}
