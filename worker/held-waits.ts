/**
 * The webhook-mode waits this daemon holds: heartbeats them, polls `/status` (backing off) for those
 * whose webhook is late, completes them by task token, and hands them back to Temporal on shutdown.
 * Webhooks are an accelerator: while none come a wait is probed early, and once they stop
 * (results/webhook-health.ts) every wait is polled at a steady short cadence.
 */
import { type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { type Logger } from 'pino';
import { isTerminal, type RemoteOutcome } from '../contracts';
import { FailureType } from '../contracts/names';
import { type AwaitRegistration } from '../results/completion-hub';
import { type ActivityMetrics } from '../common/metrics';
import { toOutcome } from '../results/outcome';
import { type ObjectStore } from '../results/store/object-store';
import { type WebhookHealth } from '../results/webhook-health';
import { isPlatformApiError, type QueueClient } from '../platform-api';

/** Options of {@link HeldWaits}; durations in ms (the webhook hub fills in its defaults). */
export interface HeldWaitsOptions {
  client: Client;
  store: ObjectStore;
  queue: Pick<QueueClient, 'status'>;
  logger: Logger;
  metrics: ActivityMetrics;
  /** First fallback `/status` poll of a wait whose webhook did not come. */
  fallbackFirstMs: number;
  /** Longest interval between fallback polls. */
  fallbackMaxMs: number;
  /** Heartbeat period of waiting activities. */
  heartbeatEveryMs: number;
  /** Whether webhooks reach the daemon; without it, only the fallback polls. */
  health?: WebhookHealth;
  /** Poll period of every wait once webhooks stopped. */
  steadyEveryMs: number;
}

interface Pending extends AwaitRegistration {
  nextPollAt: number;
  pollEveryMs: number;
  nextBeatAt: number;
  /** When it was held, last polled, and may be probed (no webhook came to the daemon for a while). */
  heldAt: number;
  polledAt: number;
  probeAt: number;
  busy: boolean;
}

/** A wait this old is probed while no webhook has come to the daemon for as long, ms. */
const QUIET_MS = 3000;

/** The waits held here, by key (workflow, remote job, retries). */
export class HeldWaits {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly o: HeldWaitsOptions) {}

  /** Holds a wait until its webhook comes, its fallback poll sees the job end, or it goes away. */
  hold(k: string, reg: AwaitRegistration): void {
    const now = Date.now();
    this.pending.set(k, {
      ...reg,
      nextPollAt: now + this.o.fallbackFirstMs,
      pollEveryMs: this.o.fallbackFirstMs,
      nextBeatAt: now + this.o.heartbeatEveryMs,
      heldAt: now,
      polledAt: now,
      probeAt: now + QUIET_MS,
      busy: false,
    });
  }

  /** The wait held under `k`, no longer held (the caller completes it). */
  take(k: string): AwaitRegistration | undefined {
    const p = this.pending.get(k);
    if (p) this.pending.delete(k);
    return p;
  }

  /** Completes a wait by its task token (one already gone is only logged). */
  async complete(p: AwaitRegistration, outcome: RemoteOutcome): Promise<void> {
    try {
      await this.o.client.activity.complete(p.taskToken, outcome);
    } catch (err) {
      this.o.logger.debug({ workflowId: p.workflowId, err: (err as Error).message }, 'wait already gone');
    }
  }

  /** Makes the waits of `workflowId` due for a poll now (their webhook came but could not be taken). */
  pollSoon(workflowId: string): void {
    for (const p of this.pending.values()) if (p.workflowId === workflowId) p.nextPollAt = 0;
  }

  /** Heartbeats the waits due for it and polls the ones whose webhook is late (all of them steadily once webhooks stopped). */
  tick(now: number): void {
    const h = this.o.health;
    const steady = h !== undefined && !h.healthy();
    const quiet = h !== undefined && now - h.lastReceivedAt >= QUIET_MS;
    for (const [k, p] of this.pending) {
      if (p.busy) continue;
      const due =
        now >= p.nextPollAt ||
        (steady && now - p.polledAt >= this.o.steadyEveryMs) ||
        (!steady && quiet && now >= p.probeAt);
      if (due) void this.poll(k, p);
      else if (now >= p.nextBeatAt) void this.beat(k, p);
    }
  }

  /**
   * Gives every wait held back to Temporal: each fails with a retryable DAEMON_SHUTDOWN, so another
   * daemon takes it up within a second instead of after the 30 s heartbeat timeout.
   */
  async handOver(): Promise<number> {
    const held = [...this.pending.values()];
    this.clear();
    const failure = ApplicationFailure.create({
      type: FailureType.DAEMON_SHUTDOWN,
      message: 'the daemon holding this wait shut down; another daemon resumes it',
      nonRetryable: false,
    });
    await Promise.all(held.map((p) => this.o.client.activity.fail(p.taskToken, failure).catch(() => undefined)));
    return held.length;
  }

  clear(): void {
    this.pending.clear();
  }

  get size(): number {
    return this.pending.size;
  }

  private async beat(k: string, p: Pending): Promise<void> {
    p.busy = true;
    try {
      await this.o.client.activity.heartbeat(p.taskToken);
      p.nextBeatAt = Date.now() + this.o.heartbeatEveryMs;
    } catch {
      // Cancelled, timed out or completed elsewhere: stop caring for it.
      this.pending.delete(k);
    } finally {
      p.busy = false;
    }
  }

  private async poll(k: string, p: Pending): Promise<void> {
    p.busy = true;
    const started = Date.now();
    try {
      this.o.health?.polled();
      const record = await this.o.queue.status(p.endpointId, p.remoteJobId);
      if (isTerminal(record.status) && this.pending.get(k) === p) {
        this.pending.delete(k);
        this.o.health?.polledDone(p.remoteJobId);
        const outcome = await toOutcome(record, { ...p, store: this.o.store, via: 'poll', metrics: this.o.metrics });
        await this.complete(p, outcome);
        return;
      }
      await this.o.client.activity.heartbeat(p.taskToken, { status: record.status, progress: record.output });
    } catch (err) {
      if (isPlatformApiError(err, 'NOT_FOUND')) {
        this.pending.delete(k);
        const failure = ApplicationFailure.create({
          type: FailureType.JOB_EXPIRED,
          message: `job ${p.remoteJobId} no longer exists on the service (its ttl expired)`,
          nonRetryable: true,
        });
        await this.o.client.activity.fail(p.taskToken, failure).catch(() => undefined);
        return;
      }
      // A wait no longer held (cleared on a stop, or ended meanwhile) needs no poll: no news.
      if (this.pending.get(k) === p)
        this.o.logger.warn({ workflowId: p.workflowId, err: (err as Error).message }, 'fallback poll failed');
    } finally {
      if (started >= p.nextPollAt) {
        p.pollEveryMs = Math.min(this.o.fallbackMaxMs, p.pollEveryMs * 2);
        p.nextPollAt = Date.now() + p.pollEveryMs;
      }
      p.polledAt = Date.now();
      p.probeAt = p.polledAt + Math.max(QUIET_MS, 2 * (p.polledAt - p.heldAt));
      p.nextBeatAt = Date.now() + this.o.heartbeatEveryMs;
      p.busy = false;
    }
  }
}
