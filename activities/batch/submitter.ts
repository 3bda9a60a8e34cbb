/**
 * A step's submissions: sent several at a time with an idempotency key each, journaled so a
 * retried step never sends again what it knows it sent. Journal entries are appended together and
 * durable before the step returns, one append (one fsync, or one S3 object) per group of submissions.
 */
import { FailureType, batchKeys, idempotencyKey } from '../../contracts/names';
import { type JobSubmission } from '../../contracts';
import { retryApplied } from '../../contracts/retry-rule';
import { BudgetWithdrawnError, isPlatformApiError, type QueueClient } from '../../platform-api';
import { fatal, toFailure } from '../errors';
import { type ObjectStore } from '../../results/store/object-store';
import { type CompletionHub } from '../../results/completion-hub';
import { inputOnly } from './input';
import { Lanes, type Lane } from './lanes';
import { type StepRequest } from './types';

/** One submission the journal knows: input, attempt, remote job. */
export interface Journaled {
  i: number;
  a: number;
  id: string;
  how: 'submit' | 'retry' | 'resubmit';
  dup?: boolean;
}

/** What a submission came to: the job, a refusal for good, or nothing (over the rate: try later). */
export type Submitted = Journaled | { error: string } | undefined;

/** The signed webhook URLs of a batch run's submissions, and the job each is bound to (worker/webhook-hub.ts). */
export type SubmissionWebhooks = Pick<CompletionHub, 'batchWebhookUrl' | 'batchJobSent'>;

/** The calls a submitter makes: `status` (optional) tells a `/retry` refused as a repeat from one refused for good. */
export type SubmitterQueue = Pick<QueueClient, 'run' | 'retry'> & Partial<Pick<QueueClient, 'status'>>;

/** Submissions in flight at once within a step. */
const PARALLEL = 16;
/**
 * How long a journal entry waits for others to share its append (its write and fsync) when fewer
 * than {@link PARALLEL} are pending: a refill sends one job at a time as slots free, and each
 * `each` of one item flushed on its own (an fsync per job, issue 22). The step still returns only
 * once every entry is durable; {@link Submitter.ungroup} makes the last ones go at once.
 */
const GROUP_MS = 100;
/** A submission held this long (ms) by the endpoint's rate budget makes the step report `rate-budget` ({@link Submitter.held}). */
const HELD_MS = 100;
/**
 * A step whose submissions the rate budget held this long in all (ms: the time any of them waited,
 * not the time since the first wait) stops sending new lines ({@link Submitter.heldLong}): they come
 * back deferred, so the batch's status says `rate-budget` while it lasts. A short hold (100 ms, a
 * 429's 1 s pause) costs its own time, not every line the step reads after 2 s.
 */
const HELD_STEP_MS = 2000;

export class Submitter {
  private readonly journal: Map<string, Journaled>;
  private readonly key: string;
  private readonly scope: string;
  private pending: Journaled[] = [];
  private flushing: Promise<void> = Promise.resolve();
  /** Callers waiting for the next flush, and its timer ({@link flushSoon}). */
  private soon?: { timer: NodeJS.Timeout; waiting: { resolve: () => void; reject: (err: unknown) => void }[] };
  /** While set (a refill: one job sent at a time), entries are grouped ({@link GROUP_MS}); else flushed at once. */
  private grouping = false;
  /** Set by the first 429: the step sends nothing more. */
  limited = false;
  rateLimited = 0;
  /** Longest wait of one submission for the endpoint's rate budget, ms. */
  private heldMs = 0;
  /** The time any of its submissions waited for the budget, ms (their waits' union), and when the last counted ended. */
  private heldForMs = 0;
  private heldTo = 0;
  /** When it returns true, submissions are not sent but come back as `undefined` (try later). */
  yieldIf?: () => boolean;
  /** Told of each wait as it ends (so waits end in order: the part before `heldTo` was counted). */
  private readonly onHeld = (ms: number): void => {
    this.heldMs = Math.max(this.heldMs, ms);
    const now = Date.now();
    this.heldForMs += Math.max(0, now - Math.max(now - ms, this.heldTo));
    this.heldTo = now;
  };

  /** The budget held a submission {@link HELD_MS} or more, or a 429 came: the step reports `rate-budget`. */
  get held(): boolean {
    return this.heldMs >= HELD_MS || this.rateLimited > 0;
  }

  /** The budget held the step's submissions {@link HELD_STEP_MS} in all: its new lines come back deferred. */
  get heldLong(): boolean {
    return this.heldForMs >= HELD_STEP_MS;
  }

  private constructor(
    private readonly queue: SubmitterQueue,
    private readonly store: ObjectStore,
    private readonly req: StepRequest,
    private readonly webhooks: SubmissionWebhooks | undefined,
    known: Journaled[],
  ) {
    this.key = batchKeys.submitJournal(req.run, req.seq);
    this.scope = `${req.run.workflowId}/${req.run.runId}`;
    this.journal = new Map(known.map((j) => [`${j.i}#${j.a}`, j]));
    for (const j of known) webhooks?.batchJobSent(req.run, j.i, j.a, j.id);
  }

  /** The submitter of step `req`, knowing what its journal holds (a retried step). */
  static async open(
    queue: SubmitterQueue,
    store: ObjectStore,
    req: StepRequest,
    webhooks: SubmissionWebhooks | undefined,
  ): Promise<Submitter> {
    const known = (await store.lines(batchKeys.submitJournal(req.run, req.seq))) as Journaled[];
    return new Submitter(queue, store, req, webhooks, known);
  }

  /** What the journal already knows of input `i`, attempt `a`. */
  known(i: number, a: number): Journaled | undefined {
    return this.journal.get(`${i}#${a}`);
  }

  /**
   * Submits one input (attempt `a`); the journal's answer when it was sent before. `signal` abandons
   * the call; `lane`, the lane of {@link each} it runs in, is given up while the call waits to retry.
   */
  async submit(
    i: number,
    body: JobSubmission,
    a: number,
    how: Journaled['how'],
    { signal, lane }: { signal?: AbortSignal; lane?: Lane } = {},
  ): Promise<Submitted> {
    const seen = this.known(i, a);
    if (seen) return seen;
    if (this.limited || this.yieldIf?.()) return undefined;
    try {
      const { run, endpointId } = this.req;
      const url = this.webhooks?.batchWebhookUrl(run, endpointId, i, a, body.policy?.ttl);
      const sent = url ? { ...body, webhook: url } : body;
      const ack = await this.queue.run(this.req.endpointId, sent, {
        idempotencyKey: idempotencyKey(this.scope, i, a),
        ...(inputOnly(body) ? { checked: true } : {}),
        ...this.budgetOptions(lane),
        ...(signal ? { signal } : {}),
        ...(this.yieldIf ? { withdrawIf: this.yieldIf } : {}),
      });
      return this.record({ i, a, id: ack.id, how, ...(ack.replayed ? { dup: true } : {}) });
    } catch (err) {
      if (err instanceof BudgetWithdrawnError) return undefined; // never sent: a later step sends it
      if (isPlatformApiError(err, 'RATE_LIMITED')) {
        this.limited = true;
        this.rateLimited++;
        return undefined;
      }
      if (isPlatformApiError(err, 'NOT_FOUND'))
        throw fatal(FailureType.ENDPOINT_NOT_FOUND, `endpoint ${this.req.endpointId} not found`, {
          endpointId: this.req.endpointId,
        });
      if (isPlatformApiError(err, 'BAD_REQUEST') || isPlatformApiError(err, 'PAYLOAD_TOO_LARGE'))
        return { error: (err as Error).message };
      throw toFailure(err);
    }
  }

  /**
   * Whether job `id`, FAILED or TIMED_OUT when the workflow ordered its `/retry`, has left that state:
   * only a `/retry` moves it, so the one refused ("only FAILED or TIMED_OUT jobs can be retried")
   * repeated a call the service had applied (its answer lost: a reset after the answer, a step
   * retried before it journaled it). Taken as refused, the input was resubmitted: a second remote
   * job beside the retried one (issue 19's all faults with kills).
   */
  private async retriedAlready(id: string): Promise<boolean> {
    if (!this.queue.status) return false;
    try {
      const now = await this.queue.status(this.req.endpointId, id, this.budgetOptions());
      return retryApplied(now.status);
    } catch (err) {
      if (isPlatformApiError(err, 'NOT_FOUND')) return false;
      // Unknown: the step fails (and is retried) rather than resubmit an input that may run already.
      throw toFailure(err);
    }
  }

  /** A first submission whose job is known before its call answered (its webhook came): journaled as answered. */
  bound(i: number, a: number, id: string): Journaled {
    return this.known(i, a) ?? this.record({ i, a, id, how: 'submit' });
  }

  /** `/retry` of a finished job (attempt `a`); `refused` when the service will not (expired, wrong state). */
  async retry(i: number, id: string, a: number, lane?: Lane): Promise<'done' | 'refused' | 'limited'> {
    if (this.known(i, a)) return 'done';
    try {
      await this.queue.retry(this.req.endpointId, id, this.budgetOptions(lane));
      this.record({ i, a, id, how: 'retry' });
      return 'done';
    } catch (err) {
      if (isPlatformApiError(err, 'BAD_REQUEST') && (await this.retriedAlready(id))) {
        this.record({ i, a, id, how: 'retry' });
        return 'done';
      }
      if (isPlatformApiError(err, 'NOT_FOUND') || isPlatformApiError(err, 'BAD_REQUEST')) return 'refused';
      if (isPlatformApiError(err, 'RATE_LIMITED')) {
        this.rateLimited++;
        return 'limited';
      }
      throw toFailure(err);
    }
  }

  /** The batch's place in the endpoint's rate budget, the measure of its waits, and the lane given up while a call waits to retry. */
  budgetOptions(lane?: Lane): {
    priority?: number;
    onBudgetWait: (ms: number) => void;
    retryWait?: Lane['wait'];
  } {
    return {
      ...(this.req.priority !== undefined ? { priority: this.req.priority } : {}),
      onBudgetWait: this.onHeld,
      ...(lane ? { retryWait: lane.wait } : {}),
    };
  }

  /**
   * Runs `fn` over `items`, {@link PARALLEL} in flight at a time (lanes.ts): each item takes the
   * next free lane (a slow call holds its own lane, not the others; a call waiting to retry holds
   * none), and the journal is flushed after every {@link PARALLEL} answers; at the end its entries are
   * made durable with those of other calls within {@link GROUP_MS} (one append for several), before it resolves.
   */
  async each<T>(items: T[], fn: (item: T, lane: Lane) => Promise<void>, beat: () => void): Promise<void> {
    const lanes = new Lanes(PARALLEL);
    let answered = 0;
    let failed = false; // then nothing more starts: the step fails
    if (items.length > 0) beat();
    await Promise.all(
      items.map(async (item) => {
        await lanes.take();
        try {
          if (failed) return;
          await fn(item, lanes.lane);
          if (++answered % PARALLEL === 0) {
            beat();
            await this.flush();
          }
        } catch (err) {
          failed = true;
          throw err;
        } finally {
          lanes.give();
        }
      }),
    );
    await this.flushSoon();
  }

  /** Entries answered from now on wait up to {@link GROUP_MS} for others to share their append (a refill begins). */
  group(): void {
    this.grouping = true;
  }

  /** From now on every flush goes at once (the refill ends: nothing is gained by waiting), and the waiting ones go now. */
  ungroup(): Promise<void> {
    this.grouping = false;
    return this.flush();
  }

  /**
   * Makes the journal entries so far durable together with those that come within {@link GROUP_MS}
   * while {@link group}ed (else, or when {@link PARALLEL} are pending, at once): resolves once they are.
   */
  flushSoon(): Promise<void> {
    if (!this.grouping || this.pending.length === 0 || this.pending.length >= PARALLEL) return this.flush();
    return new Promise<void>((resolve, reject) => {
      this.soon ??= { timer: setTimeout(() => void this.flush().catch(() => undefined), GROUP_MS), waiting: [] };
      this.soon.waiting.push({ resolve, reject });
    });
  }

  /** Makes the journal entries so far durable (one append at a time); those waiting in {@link flushSoon} too. */
  flush(): Promise<void> {
    const soon = this.soon;
    this.soon = undefined;
    if (soon) clearTimeout(soon.timer);
    this.flushing = this.flushing.then(async () => {
      if (this.pending.length === 0) return;
      const group = this.pending;
      this.pending = [];
      await this.store.append(this.key, group);
    });
    const done = this.flushing;
    if (soon)
      done.then(
        () => soon.waiting.forEach((w) => w.resolve()),
        (err) => soon.waiting.forEach((w) => w.reject(err)),
      );
    return done;
  }

  /** Journals a submission, and binds its webhook URL to its job. */
  private record(j: Journaled): Journaled {
    this.webhooks?.batchJobSent(this.req.run, j.i, j.a, j.id);
    this.journal.set(`${j.i}#${j.a}`, j);
    this.pending.push(j);
    return j;
  }
}
