import { createHmac, timingSafeEqual } from 'node:crypto';
import { type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { type Logger } from 'pino';
import { isTerminal, type JobRecord, type RemoteOutcome, type RunScope } from '../contracts';
import { awaitActivityId, FailureType } from '../contracts/names';
import { type AwaitRegistration, type CompletionHub } from '../activities/completion-hub';
import { toOutcome } from '../activities/outcome';
import { type ObjectStore } from '../activities/store/object-store';
import { type ActivityMetrics } from '../activities/metrics';
import { type InboxReceiver } from '../activities/batch/inbox';
import { isPlatformApiError, type QueueClient } from '../platform-api';

/** Options of {@link WebhookHub}; durations in ms. */
export interface WebhookHubOptions {
  secret: string;
  /** Base URL of the daemon as the service reaches it. */
  publicUrl: string;
  client: Client;
  store: ObjectStore;
  queue: Pick<QueueClient, 'status'>;
  logger: Logger;
  metrics: ActivityMetrics & { notice(via: string, seconds: number): void };
  /** Where webhooks of batch jobs go until the batch's next step takes them. */
  inbox?: InboxReceiver;
  /**
   * First fallback `/status` poll of a wait whose webhook did not come.
   * @default 30000
   */
  fallbackFirstMs?: number;
  /**
   * Longest interval between fallback polls.
   * @default 300000
   */
  fallbackMaxMs?: number;
  /**
   * Heartbeat period of waiting activities (their heartbeat timeout is 30 s).
   * @default 10000
   */
  heartbeatEveryMs?: number;
}

/** A webhook that came before its wait was registered here: kept for a local registration, and offered again by activity id (the wait may start on another daemon). */
interface Early {
  outcome: RemoteOutcome;
  at: number;
  workflowId: string;
  activityId: string;
  nextTryAt: number;
  busy: boolean;
}

/** How long an early webhook is offered again by activity id to a wait held by another daemon, ms. */
const EARLY_OFFER_MS = 120_000;

interface Pending extends AwaitRegistration {
  nextPollAt: number;
  pollEveryMs: number;
  nextBeatAt: number;
  busy: boolean;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64url');
const key = (workflowId: string, remoteJobId: string, retries: number): string => `${workflowId}\u0000${remoteJobId}#${retries}`;

/**
 * Completes webhook-mode waits. The webhook URL of a job carries its workflow id and an HMAC of
 * it, so only the service that got the URL can complete the job. A waiting activity is
 * completed by task token when it is registered here, by activity id when another daemon holds
 * it; a webhook that beats its activity is kept until the activity registers.
 */
export class WebhookHub implements CompletionHub {
  private readonly pending = new Map<string, Pending>();
  private readonly early = new Map<string, Early>();
  private readonly timer: NodeJS.Timeout;
  private readonly fallbackFirstMs: number;
  private readonly fallbackMaxMs: number;
  private readonly heartbeatEveryMs: number;

  constructor(private readonly o: WebhookHubOptions) {
    this.fallbackFirstMs = o.fallbackFirstMs ?? 30_000;
    this.fallbackMaxMs = o.fallbackMaxMs ?? 300_000;
    this.heartbeatEveryMs = o.heartbeatEveryMs ?? 10_000;
    this.timer = setInterval(() => this.tick(), 250);
    this.timer.unref();
  }

  webhookUrl(run: RunScope, inlineLimit: number): string {
    return this.url(`${run.workflowId}\n${run.runId}`, inlineLimit);
  }

  batchWebhookUrl(run: RunScope): string {
    return this.url(`${run.workflowId}\n${run.runId}\nbatch`, 0);
  }

  /** The run of a webhook path (and whether it is a batch's), or undefined when its signature is wrong. */
  verify(encodedScope: string, inlineLimit: string, signature: string): { run: RunScope; inlineLimit: number; batch: boolean } | undefined {
    const scope = Buffer.from(encodedScope, 'base64url').toString();
    const [workflowId, runId, kind, ...rest] = scope.split('\n');
    const limit = Number(inlineLimit);
    if (!workflowId || !runId || (kind !== undefined && kind !== 'batch') || rest.length > 0 || !Number.isInteger(limit) || limit < 0) return undefined;
    const want = Buffer.from(this.sign(scope, limit));
    const got = Buffer.from(signature);
    return want.length === got.length && timingSafeEqual(want, got) ? { run: { workflowId, runId }, inlineLimit: limit, batch: kind === 'batch' } : undefined;
  }

  private url(scope: string, inlineLimit: number): string {
    return `${this.o.publicUrl}/hooks/${b64(scope)}/${inlineLimit}/${this.sign(scope, inlineLimit)}`;
  }

  register(reg: AwaitRegistration): RemoteOutcome | undefined {
    const k = key(reg.workflowId, reg.remoteJobId, reg.retries);
    const early = this.early.get(k);
    if (early) {
      this.early.delete(k);
      return early.outcome;
    }
    const now = Date.now();
    this.pending.set(k, { ...reg, nextPollAt: now + this.fallbackFirstMs, pollEveryMs: this.fallbackFirstMs, nextBeatAt: now + this.heartbeatEveryMs, busy: false });
    return undefined;
  }

  /** A webhook call from the service: the finished job's record. */
  async onWebhook(target: { run: RunScope; inlineLimit: number; batch?: boolean }, record: JobRecord): Promise<void> {
    const { run, inlineLimit } = target;
    const { workflowId } = run;
    if (!isTerminal(record.status)) return;
    if (target.batch) {
      await this.o.inbox?.put(run, record);
      this.o.metrics.notice('webhook', 0);
      return;
    }
    const started = Date.now();
    const retries = typeof record.retries === 'number' ? record.retries : 0;
    const k = key(workflowId, record.id, retries);
    // A big output is stored first; an activity registering meanwhile is found in `pending` below.
    const outcome = await toOutcome(record, { ...run, retries, inlineLimit, store: this.o.store, via: 'webhook', metrics: this.o.metrics });
    const p = this.pending.get(k);
    if (p) {
      this.pending.delete(k);
      await this.complete(p, outcome);
    } else {
      // Kept first (synchronously), so an activity registering meanwhile finds it.
      const e: Early = { outcome, at: started, workflowId, activityId: awaitActivityId(record.id, retries), nextTryAt: 0, busy: false };
      this.early.set(k, e);
      // Not started yet, or already done: the entry serves the activity if it registers here, and is
      // offered again by activity id for a while, in case it starts on another daemon.
      await this.offer(k, e);
    }
    this.o.metrics.notice('webhook', (Date.now() - started) / 1000);
  }

  close(): void {
    clearInterval(this.timer);
    this.pending.clear();
  }

  /**
   * Gives the waits this daemon holds back to Temporal (on shutdown): each fails with a retryable
   * DAEMON_SHUTDOWN, so another daemon takes it up within a second instead of after the 30 s
   * heartbeat timeout.
   */
  async handOver(): Promise<number> {
    const held = [...this.pending.values()];
    this.close();
    const failure = ApplicationFailure.create({
      type: FailureType.DAEMON_SHUTDOWN,
      message: 'the daemon holding this wait shut down; another daemon resumes it',
      nonRetryable: false,
    });
    await Promise.all(held.map((p) => this.o.client.activity.fail(p.taskToken, failure).catch(() => undefined)));
    return held.length;
  }

  /** How many waits this daemon holds (for /readyz and tests). */
  get waiting(): number {
    return this.pending.size;
  }

  private sign(scope: string, inlineLimit: number): string {
    return createHmac('sha256', this.o.secret).update(`${scope}\n${inlineLimit}`).digest('base64url');
  }

  private async complete(p: Pending, outcome: RemoteOutcome): Promise<void> {
    try {
      await this.o.client.activity.complete(p.taskToken, outcome);
    } catch (err) {
      this.o.logger.debug({ workflowId: p.workflowId, err: (err as Error).message }, 'wait already gone');
    }
  }

  /** Heartbeats waiting activities and polls the ones whose webhook is late. */
  private tick(): void {
    const now = Date.now();
    for (const [k, p] of this.pending) {
      if (p.busy) continue;
      if (now >= p.nextPollAt) void this.poll(k, p);
      else if (now >= p.nextBeatAt) void this.beat(k, p);
    }
    for (const [k, e] of this.early) {
      if (now - e.at > 3_600_000) this.early.delete(k);
      else if (!e.busy && now - e.at < EARLY_OFFER_MS && now >= e.nextTryAt) void this.offer(k, e);
    }
  }

  /** Completes a wait by activity id, whichever daemon holds it; backs off while it has not started. */
  private async offer(k: string, e: Early): Promise<void> {
    e.busy = true;
    try {
      await this.o.client.activity.complete({ workflowId: e.workflowId, activityId: e.activityId }, e.outcome);
      this.early.delete(k);
    } catch {
      e.nextTryAt = Date.now() + Math.min(10_000, 500 * 2 ** Math.floor((Date.now() - e.at) / 2000));
    } finally {
      e.busy = false;
    }
  }

  private async beat(k: string, p: Pending): Promise<void> {
    p.busy = true;
    try {
      await this.o.client.activity.heartbeat(p.taskToken);
      p.nextBeatAt = Date.now() + this.heartbeatEveryMs;
    } catch {
      // Cancelled, timed out or completed elsewhere: stop caring for it.
      this.pending.delete(k);
    } finally {
      p.busy = false;
    }
  }

  private async poll(k: string, p: Pending): Promise<void> {
    p.busy = true;
    try {
      const record = await this.o.queue.status(p.endpointId, p.remoteJobId);
      if (isTerminal(record.status) && this.pending.get(k) === p) {
        this.pending.delete(k);
        const outcome = await toOutcome(record, { ...p, store: this.o.store, via: 'poll', metrics: this.o.metrics });
        await this.complete(p, outcome);
        return;
      }
      await this.o.client.activity.heartbeat(p.taskToken, { status: record.status, progress: record.output });
    } catch (err) {
      if (isPlatformApiError(err, 'NOT_FOUND')) {
        this.pending.delete(k);
        const failure = ApplicationFailure.create({ type: FailureType.JOB_EXPIRED, message: `job ${p.remoteJobId} no longer exists on the service (its ttl expired)`, nonRetryable: true });
        await this.o.client.activity.fail(p.taskToken, failure).catch(() => undefined);
        return;
      }
      this.o.logger.warn({ workflowId: p.workflowId, err: (err as Error).message }, 'fallback poll failed');
    } finally {
      p.pollEveryMs = Math.min(this.fallbackMaxMs, p.pollEveryMs * 2);
      p.nextPollAt = Date.now() + p.pollEveryMs;
      p.nextBeatAt = Date.now() + this.heartbeatEveryMs;
      p.busy = false;
    }
  }
}
