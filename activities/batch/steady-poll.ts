/**
 * A batch step's completions when webhooks are an accelerator, not a dependency: what the inbox
 * received, plus what `/status` polls find. While webhooks arrive only late jobs are polled (their
 * webhook should have come, or the endpoint's count says they finished: count-rule.ts, asked every
 * 0.5 s), each less often; once they stop (results/webhook-health.ts) every job
 * of the batch in flight is polled at a steady cadence, oldest first, a bounded number per round,
 * within the endpoint's `/status` rate budget.
 */
import { isTerminal, type JobRecord } from '../../contracts';
import { isPlatformApiError, type QueueClient } from '../../platform-api';
import { type InboxPosition, type InboxReader, type InboxRecord } from '../../results/batch/inbox';
import { type WebhookHealth } from '../../results/webhook-health';
import { missedIfFound, type Found, type InFlightJobs, type Tracked } from './in-flight';
import { type StepRequest, type StepResult } from './types';

/** Cadence of polling rounds, ms. */
const ROUND_MS = 100;
/** Longest interval between two polls of one job once webhooks stopped, ms. */
const STEADY_MAX_MS = 2000;
/** Most polls under way at once. */
const PER_ROUND = 100;
/**
 * Longest interval between two polls of a late job still running, ms: a job stuck a while (a
 * platform restart requeued it) whose webhook is then lost is found within this, not twice its age.
 */
const LATE_EVERY_MAX_MS = 5000;

/** What a {@link SteadyPoll} needs. */
export interface SteadyPollDeps {
  inner: InboxReader;
  jobs: InFlightJobs;
  health?: WebhookHealth;
  queue: Pick<QueueClient, 'status'> & Partial<Pick<QueueClient, 'health'>>;
  req: StepRequest;
  /** The step's result so far: its submissions join the jobs in flight. */
  res: StepResult;
}

/**
 * When a job is polled next once webhooks stopped: first after the batch's usual time of a job (as
 * polls found them), then half its age after the last poll, within bounds.
 */
const steadyAt = (t: Tracked, usual: number | undefined): number => {
  if (t.polledAt === 0) return t.t0 + Math.min(STEADY_MAX_MS, Math.max(ROUND_MS, 1.1 * (usual ?? 0)));
  return t.polledAt + Math.min(STEADY_MAX_MS, Math.max(ROUND_MS, (t.polledAt - t.t0) / 2));
};

/** How long ago a job polled finished ended: its time since sent, less its queue and run times (0 when not told). */
const endedAgo = (t: Tracked, r: JobRecord): number =>
  typeof r.delayTime === 'number' && typeof r.executionTime === 'number'
    ? Date.now() - t.t0 - r.delayTime - r.executionTime
    : 0;

export class SteadyPoll implements InboxReader {
  /** Records heard (taken from the inbox) or found by polls, not handed to the step yet. */
  private ready: InboxRecord[] = [];
  private nextRoundAt = 0;
  /** Polls under way. */
  private busy = 0;
  private stopped = false;
  private synced = { submitted: 0, retried: 0 };
  private readonly wf: string;
  /** What polls found that this step took: given back if the step fails, and marked polled in its result. */
  private readonly taken: Found[] = [];

  constructor(private readonly d: SteadyPollDeps) {
    this.wf = d.req.run.workflowId;
  }

  /** True while the batch's jobs are polled steadily (webhooks stopped). */
  get polling(): boolean {
    return this.d.health !== undefined && !this.d.health.healthy(this.wf);
  }

  async take(): Promise<InboxRecord[]> {
    await this.collect();
    this.round();
    const out = this.ready;
    this.ready = [];
    return out;
  }

  /** Like the inbox's wait, with polling rounds meanwhile: jobs a round found finished count too. */
  async wait(min: number, ms: number, signal?: AbortSignal, lingerMs?: number): Promise<void> {
    const until = Date.now() + ms;
    for (;;) {
      await this.collect();
      this.round();
      const left = until - Date.now();
      if (this.ready.length >= min || left <= 0 || signal?.aborted) return;
      const slice = Math.min(left, Math.max(50, this.nextRoundAt - Date.now()));
      const t = Date.now();
      await this.d.inner.wait(Math.max(1, min - this.ready.length), slice, signal, lingerMs);
      // Returned before its time: records (or an abort) came.
      if (Date.now() - t < slice - 20) return;
    }
  }

  position(): InboxPosition {
    return this.d.inner.position();
  }

  /**
   * The records of this step that polls found (each read the current run of its job, as the daemon
   * tracks it: a webhook may be of an earlier run, a poll answer is not; completion-match.ts).
   */
  get polled(): ReadonlySet<JobRecord> {
    return new Set(this.taken.map((f) => f.record));
  }

  /** The step failed: what polls found goes back to the daemon's memory for the batch's next step. */
  giveBack(): void {
    this.d.jobs.giveBack(this.wf, this.taken.splice(0));
  }

  /** No more rounds (the step ends; polls under way finish on their own, their finds kept for the next step). */
  stop(): void {
    this.stopped = true;
  }

  /**
   * What came since: the inbox's records (their jobs are heard of before any round decides which
   * are late: a webhook waiting in the inbox is not a late job) and what polls found.
   */
  private async collect(): Promise<void> {
    // Retries answered first: a webhook of the retry's run then ends it, one of the run before does not.
    this.sync();
    const got = await this.d.inner.take();
    for (const r of got) {
      this.d.health?.received(r.id, this.wf);
      this.d.jobs.done(this.wf, r.id, true, Date.now(), r.retries ?? 0);
    }
    const found = this.d.jobs.takeFound(this.wf);
    this.taken.push(...found);
    this.ready.push(...got, ...found.map((f) => f.record));
  }

  /**
   * One round of polls when due: every job not polled lately (webhooks off), else late jobs. The
   * polls run on their own (a slow answer holds up nothing); what they find is taken with the inbox.
   */
  private round(): void {
    this.sync();
    const now = Date.now();
    if (now < this.nextRoundAt || this.stopped) return;
    this.nextRoundAt = now + ROUND_MS;
    const usual = this.d.jobs.usualMs(this.wf);
    if (!this.polling && this.d.queue.health && this.d.jobs.wantsCount(this.wf, now)) void this.count(now);
    const due = this.polling
      ? this.d.jobs.of(this.wf).filter((t) => !t.busy && now >= steadyAt(t, usual))
      : this.d.jobs.late(this.wf, now);
    for (const t of due.slice(0, Math.max(0, PER_ROUND - this.busy))) void this.poll(t);
  }

  /** Asks the endpoint's count (in-flight.ts, the count rule); its missing jobs are polled from the next round. */
  private async count(askedAt: number): Promise<void> {
    try {
      const h = await this.d.queue.health!(this.d.req.endpointId);
      this.d.jobs.counted(this.wf, h.jobs.inQueue + h.jobs.inProgress, askedAt);
    } catch {
      // Unanswered: the late rule and the workflow's fallback poll remain.
    }
  }

  private async poll(t: Tracked): Promise<void> {
    t.busy = true;
    t.busySince = Date.now();
    t.hedge = false;
    this.busy++;
    this.d.health?.polled();
    try {
      const r = await this.d.queue.status(this.d.req.endpointId, t.id, this.prio());
      t.polledAt = Date.now();
      // Ended meanwhile (heard of, or found by another poll) or retried since: this answer is of no run in flight.
      if (!this.d.jobs.tracks(this.wf, t)) return;
      if (isTerminal(r.status)) {
        if (typeof r.delayTime === 'number' && typeof r.executionTime === 'number')
          this.d.jobs.took(this.wf, r.delayTime + r.executionTime);
        // No longer in flight from now (never polled again), its record kept until a step takes it.
        if (missedIfFound(t)) this.d.health?.polledDone(r.id, this.wf, endedAgo(t, r));
        this.d.jobs.found(this.wf, r);
      } else t.pollAt = t.polledAt + Math.min(LATE_EVERY_MAX_MS, 2 * Math.max(1000, t.polledAt - t.t0));
    } catch (err) {
      // Not known any more: the workflow's own poll reports it expired. A 429 pauses the rounds.
      // Unanswered (after the client's retries): the service failed, see lateness.ts.
      if (isPlatformApiError(err, 'NOT_FOUND')) this.d.jobs.done(this.wf, t.id, false);
      else if (isPlatformApiError(err, 'RATE_LIMITED')) this.nextRoundAt = Date.now() + 4 * ROUND_MS;
      else if (isPlatformApiError(err, 'NETWORK') || isPlatformApiError(err, 'SERVER_ERROR'))
        this.d.jobs.failed(this.wf);
      t.polledAt = Date.now();
      t.pollAt = t.polledAt + 1000;
    } finally {
      t.busy = false;
      this.busy--;
    }
  }

  /** The step's new submissions (and retries) join the jobs in flight (also once stopped: those answered at its end). */
  sync(): void {
    const { res } = this.d;
    // A replayed submission may be finished already (its webhook long gone, or its record dropped
    // by a step before the workflow knew the job): polled at once.
    for (const s of res.submitted.slice(this.synced.submitted))
      if (s.dup) this.d.jobs.recheck(this.wf, s.id, true);
      else this.d.jobs.add(this.wf, s.id);
    // A job retried under its id is in flight again.
    for (const r of res.retried.slice(this.synced.retried))
      if (!r.refused) this.d.jobs.add(this.wf, r.id, Date.now(), undefined, true);
    this.synced = { submitted: res.submitted.length, retried: res.retried.length };
  }

  private prio(): { priority?: number } {
    return this.d.req.priority !== undefined ? { priority: this.d.req.priority } : {};
  }
}
