/**
 * A finished job's outcome to its wait: by task token when the wait is held here, by activity id
 * when another daemon holds it; one that beats its wait is kept (an early webhook) until the wait
 * registers here, and offered again by activity id for a while, in case it starts on another daemon.
 */
import { type Client } from '@temporalio/client';
import { type Logger } from 'pino';
import { type JobRecord, type RemoteOutcome } from '../contracts';
import { awaitActivityId } from '../contracts/names';
import { type ActivityMetrics } from '../common/metrics';
import { toOutcome } from '../results/outcome';
import { type ObjectStore } from '../results/store/object-store';
import { EarlyWebhooks, loggedDrops, type EarlyWebhook, type EarlyWebhooksOptions } from './early-webhooks';
import { type HeldWaits } from './held-waits';
import { type WebhookTarget } from './webhook-url';

/** How long an early webhook is offered again by activity id to a wait held by another daemon, ms. */
const EARLY_OFFER_MS = 120_000;

/** Options of {@link OutcomeDelivery} (the webhook hub's). */
export interface OutcomeDeliveryOptions {
  client: Client;
  store: ObjectStore;
  logger: Logger;
  metrics: ActivityMetrics & { earlyWebhookDropped?(bound: 'entries' | 'bytes'): void };
  /** The waits held here. */
  held: HeldWaits;
  /** Bounds of the table of webhooks that came before their wait (worker/early-webhooks.ts). */
  early?: Omit<EarlyWebhooksOptions, 'onDrop'>;
}

/** Delivers the outcomes of job webhooks to their waits, here or on another daemon, now or once the wait starts. */
export class OutcomeDelivery {
  private readonly early: EarlyWebhooks;

  constructor(private readonly o: OutcomeDeliveryOptions) {
    this.early = new EarlyWebhooks({ ...o.early, onDrop: loggedDrops(o.logger, o.metrics) });
  }

  /** The outcome kept for the wait registering under `k`, taken; undefined when none is kept (or it is being offered). */
  takeEarly(k: string): RemoteOutcome | undefined {
    const early = this.early.get(k);
    // Not while an offer by id is in flight: it may complete this very wait, and the activity's own
    // completion would come second (core: "Activity not found on completion"). The offer settles it.
    if (early && !early.busy) {
      this.early.delete(k);
      return early.outcome;
    }
    return undefined;
  }

  /** Completes the wait of a finished job (held here, or by activity id), or keeps the outcome for a wait to come. */
  async complete(target: WebhookTarget, record: JobRecord, retries: number, k: string): Promise<void> {
    const started = Date.now();
    const { run, inlineLimit } = target;
    // A big output is stored first; an activity registering meanwhile is found among the held waits below.
    const outcome = await toOutcome(record, {
      ...run,
      retries,
      inlineLimit,
      store: this.o.store,
      via: 'webhook',
      metrics: this.o.metrics,
    });
    const p = this.o.held.take(k);
    if (p) return this.o.held.complete(p, outcome);
    // Kept first (synchronously), so an activity registering meanwhile finds it.
    const e: EarlyWebhook = {
      outcome,
      at: started,
      workflowId: run.workflowId,
      activityId: awaitActivityId(record.id, retries),
      nextTryAt: 0,
      busy: false,
    };
    this.early.set(k, e);
    // Not started yet, or already done: the entry serves the activity if it registers here, and is
    // offered again by activity id for a while, in case it starts on another daemon.
    await this.offer(k, e);
  }

  /** Offers the early webhooks again when their back-off allows, and drops them after an hour. */
  offerAgain(now: number): void {
    for (const [k, e] of this.early.expire(now)) {
      if (!e.busy && now - e.at < EARLY_OFFER_MS && now >= e.nextTryAt) void this.offer(k, e);
    }
  }

  /**
   * Completes a wait by activity id, whichever daemon holds it; backs off while it has not started.
   * A wait that registered here meanwhile is settled with it: dropped when the offer completed it,
   * completed by its task token when the offer came too soon.
   */
  private async offer(k: string, e: EarlyWebhook): Promise<void> {
    e.busy = true;
    try {
      await this.o.client.activity.complete({ workflowId: e.workflowId, activityId: e.activityId }, e.outcome);
      this.early.delete(k);
      this.o.held.take(k);
    } catch {
      const p = this.o.held.take(k);
      if (p) {
        this.early.delete(k);
        await this.o.held.complete(p, e.outcome);
      } else {
        e.nextTryAt = Date.now() + Math.min(10_000, 500 * 2 ** Math.floor((Date.now() - e.at) / 2000));
      }
    } finally {
      e.busy = false;
    }
  }
}
