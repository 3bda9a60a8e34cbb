/**
 * What a verified webhook call is worth: a body naming the very job its URL is bound to is taken as
 * it is; an unbound or incomplete one (or every one, `SLUICE_WEBHOOK_CONFIRM=status`) only names the
 * job, whose outcome is then its `/status` record (docs/orchestrator.md, "Webhooks": which it trusts and why).
 */
import { type Logger } from 'pino';
import { isTerminal, type JobRecord, type RunScope } from '../contracts';
import { runKey, submitJournalKey } from '../contracts/names';
import { isPlatformApiError, type QueueClient } from '../platform-api';
import { type ObjectStore } from '../results/store/object-store';
import { type WebhookTarget } from './webhook-url';

/** What becomes of a bound body: `binding`, taken as it is; `status`, confirmed by `/status` all the same. */
export type WebhookConfirm = 'binding' | 'status';

/** What became of a webhook call whose URL verified: the answer the receiver gives. */
export interface WebhookAnswer {
  status: 200 | 403 | 503;
  /** `accepted`, or why it changed nothing. */
  result: 'accepted' | 'replay' | 'not_finished' | 'gone' | 'other_job' | 'status_unavailable';
  message?: string;
}

/** How many batch submissions a daemon remembers the job of (the oldest forgotten first). */
const BOUND_BATCH_JOBS = 100_000;

/**
 * The remote job of each batch submission (input, attempt) this daemon sent lately, as its step
 * journaled it: what a batch URL's claims are checked against without reading the step's journal.
 */
export class BatchBindings {
  private readonly jobs = new Map<string, string>();
  /** How many submissions each job is bound to (one, but for a service ignoring idempotency keys). */
  private readonly ids = new Map<string, number>();

  private static key(run: RunScope, index: number, attempt: number): string {
    return `${runKey(run)}\u0000${index}#${attempt}`;
  }

  set(run: RunScope, index: number, attempt: number, remoteJobId: string): void {
    const k = BatchBindings.key(run, index, attempt);
    this.forget(k);
    if (this.jobs.size >= BOUND_BATCH_JOBS) this.forget(this.jobs.keys().next().value!);
    this.jobs.set(k, remoteJobId);
    this.ids.set(remoteJobId, (this.ids.get(remoteJobId) ?? 0) + 1);
  }

  /** Whether a submission's answer named job `id` (then no other URL may claim it). */
  hasJob(id: string): boolean {
    return this.ids.has(id);
  }

  private forget(k: string): void {
    const id = this.jobs.get(k);
    if (id === undefined) return;
    this.jobs.delete(k);
    const n = (this.ids.get(id) ?? 1) - 1;
    if (n > 0) this.ids.set(id, n);
    else this.ids.delete(id);
  }

  get(run: RunScope, index: number, attempt: number): string | undefined {
    return this.jobs.get(BatchBindings.key(run, index, attempt));
  }

  /**
   * Forgets a submission whose job completed (no webhook of it will matter any more: a replay is answered as one),
   * its job with it: both maps hold the jobs in flight only (the job's id was once kept for ever, ~90 bytes a job).
   */
  delete(run: RunScope, index: number, attempt: number): void {
    this.forget(BatchBindings.key(run, index, attempt));
  }

  get size(): number {
    return this.jobs.size;
  }
}

/** What a call needs to be judged. */
export interface TrustDeps {
  store: ObjectStore;
  queue: Pick<QueueClient, 'status'>;
  logger: Logger;
  batches: BatchBindings;
  confirm: WebhookConfirm;
}

/** The remote job the URL's claims are bound to, when this daemon can tell (else undefined). */
async function boundJob(target: WebhookTarget, d: TrustDeps): Promise<string | undefined> {
  if (target.kind === 'batch') return d.batches.get(target.run, target.index ?? -1, target.attempt);
  // Written right after /run answered: a webhook faster than that cannot be checked by it.
  const journal = (await d.store.find(submitJournalKey(target.run, target.attempt))) as
    { remoteJobId?: string } | undefined;
  return typeof journal?.remoteJobId === 'string' ? journal.remoteJobId : undefined;
}

/** A terminal body that says all its outcome: a completed job's output, a failed one's error. */
const whole = (hint: JobRecord): boolean => hint.status !== 'COMPLETED' || 'output' in hint;

/**
 * The finished job a call on `target` names (`hint`, its body): the body itself when it names the
 * job its URL is bound to (`confirm: 'binding'`), else what `/status` says of it; or the answer that
 * ends the call: not finished (by the body or by `/status`), gone from the service, not the URL's
 * job (403 `OTHER_JOB`, nothing stored), `/status` unreadable.
 */
export async function trustedRecord(
  target: WebhookTarget,
  hint: JobRecord,
  d: TrustDeps,
): Promise<{ record: JobRecord } | { answer: WebhookAnswer }> {
  if (!isTerminal(hint.status)) return { answer: { status: 200, result: 'not_finished' } };
  const bound = await boundJob(target, d);
  if (bound !== undefined && bound !== hint.id)
    return { answer: { status: 403, result: 'other_job', message: `this webhook URL is not job ${hint.id}'s` } };
  if (bound !== undefined && d.confirm === 'binding' && whole(hint)) return { record: hint };
  let record: JobRecord;
  try {
    record = await d.queue.status(target.endpointId, hint.id);
  } catch (err) {
    if (isPlatformApiError(err, 'NOT_FOUND')) return { answer: { status: 200, result: 'gone' } };
    d.logger.warn({ jobId: hint.id, err: (err as Error).message }, 'webhook: /status of the job failed');
    return {
      answer: { status: 503, result: 'status_unavailable', message: "the job's /status could not be read: try again" },
    };
  }
  if (!isTerminal(record.status)) return { answer: { status: 200, result: 'not_finished' } };
  return { record };
}
