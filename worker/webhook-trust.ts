/**
 * What a verified webhook call is worth: its body only names the job that finished; the outcome is
 * the service's `/status` record of it (docs/orchestrator.md, "Webhooks": why the body is a hint).
 */
import { type Logger } from 'pino';
import { isTerminal, type JobRecord } from '../contracts';
import { submitJournalKey } from '../contracts/names';
import { isPlatformApiError, type QueueClient } from '../platform-api';
import { type ObjectStore } from '../results/store/object-store';
import { type WebhookTarget } from './webhook-url';

/** What became of a webhook call whose URL verified: the answer the receiver gives. */
export interface WebhookAnswer {
  status: 200 | 403 | 503;
  /** `accepted`, or why it changed nothing. */
  result: 'accepted' | 'replay' | 'not_finished' | 'gone' | 'other_job' | 'status_unavailable';
  message?: string;
}

/**
 * The finished job a call on `target` names (`hint`, its body), as `/status` says; or the answer
 * that ends the call: not finished (by the body or by `/status`), gone from the service, not the
 * job of a job workflow's URL (its attempt's submission journal names another), `/status` unreadable.
 */
export async function trustedRecord(
  target: WebhookTarget,
  hint: JobRecord,
  d: { store: ObjectStore; queue: Pick<QueueClient, 'status'>; logger: Logger },
): Promise<{ record: JobRecord } | { answer: WebhookAnswer }> {
  if (!isTerminal(hint.status)) return { answer: { status: 200, result: 'not_finished' } };
  if (target.kind === 'job') {
    // Written right after /run answered: a webhook faster than that is checked by /status alone.
    const journal = (await d.store.find(submitJournalKey(target.run, target.attempt))) as
      { remoteJobId?: string } | undefined;
    if (journal?.remoteJobId !== undefined && journal.remoteJobId !== hint.id)
      return { answer: { status: 403, result: 'other_job', message: `this webhook URL is not job ${hint.id}'s` } };
  }
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
