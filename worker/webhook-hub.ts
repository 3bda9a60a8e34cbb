/** The daemon's side of webhook completion: signed webhook URLs, and the webhooks that complete waiting activities (worker/outcome-delivery.ts: early ones kept). */
import { type Client } from '@temporalio/client';
import { type Logger } from 'pino';
import { isTerminal, type JobRecord, type RemoteOutcome, type RunScope } from '../contracts';
import { type AwaitRegistration, type CompletionHub } from '../results/completion-hub';
import { type ObjectStore } from '../results/store/object-store';
import { type ActivityMetrics } from '../common/metrics';
import { type InboxReceiver } from '../results/batch/inbox';
import { type QueueClient } from '../platform-api';
import { type WebhookHealth } from '../results/webhook-health';
import { type EarlyWebhooksOptions } from './early-webhooks';
import { HeldWaits } from './held-waits';
import { OutcomeDelivery } from './outcome-delivery';
import { WebhookUrls, type WebhookRefusal, type WebhookTarget } from './webhook-url';
import { BatchBindings, trustedRecord, type WebhookAnswer, type WebhookConfirm } from './webhook-trust';

export type { WebhookAnswer } from './webhook-trust';

/** Options of {@link WebhookHub}; durations in ms. */
export interface WebhookHubOptions {
  secret: string;
  /** Base URL of the daemon as the service reaches it. */
  publicUrl: string;
  client: Client;
  store: ObjectStore;
  queue: Pick<QueueClient, 'status'>;
  logger: Logger;
  metrics: ActivityMetrics & {
    notice(via: string, seconds: number): void;
    earlyWebhookDropped?(bound: 'entries' | 'bytes'): void;
  };
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
  /** Whether webhooks reach the daemon (told of every webhook); without it, waits only fall back to polls. */
  health?: WebhookHealth;
  /**
   * Poll period of every held wait once webhooks stopped reaching the daemon.
   * @default 1000
   */
  steadyEveryMs?: number;
  /** Bounds of the table of webhooks that came before their wait (worker/early-webhooks.ts). */
  early?: Omit<EarlyWebhooksOptions, 'onDrop'>;
  /**
   * What a body naming its URL's own job is worth: `binding`, taken as it is; `status`, confirmed
   * by `/status` like any other (SLUICE_WEBHOOK_CONFIRM).
   * @default 'binding'
   */
  confirm?: WebhookConfirm;
}

/** How many handled webhooks a daemon remembers, so a replay of one is answered without a `/status` call. */
const REMEMBERED = 10_000;

const key = (workflowId: string, remoteJobId: string, retries: number): string =>
  `${workflowId}\u0000${remoteJobId}#${retries}`;

/** Adds `k` to a bounded set (the oldest forgotten first). */
const remember = (set: Set<string>, k: string): void => {
  if (set.size >= REMEMBERED) set.delete(set.values().next().value!);
  set.add(k);
};

/**
 * Completes webhook-mode waits. A job's webhook URL is signed (worker/webhook-url.ts); a body naming
 * the job the URL is bound to is its outcome, any other is refused or confirmed by `/status`
 * (worker/webhook-trust.ts; docs/orchestrator.md, "Webhooks"). A waiting
 * activity is completed by task token when it is registered here, by activity id when another
 * daemon holds it; a webhook that beats its activity is kept until the activity registers
 * (worker/outcome-delivery.ts).
 */
export class WebhookHub implements CompletionHub {
  private readonly held: HeldWaits;
  private readonly delivery: OutcomeDelivery;
  /** Keys of the jobs whose webhook this daemon handled lately (a replay changes nothing). */
  private readonly handled = new Set<string>();
  private readonly urls: WebhookUrls;
  /** The remote job of each batch submission sent from this daemon lately (what batch URLs are bound to). */
  private readonly batches = new BatchBindings();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly o: WebhookHubOptions) {
    this.held = new HeldWaits({
      client: o.client,
      store: o.store,
      queue: o.queue,
      logger: o.logger,
      metrics: o.metrics,
      fallbackFirstMs: o.fallbackFirstMs ?? 30_000,
      fallbackMaxMs: o.fallbackMaxMs ?? 300_000,
      heartbeatEveryMs: o.heartbeatEveryMs ?? 10_000,
      steadyEveryMs: o.steadyEveryMs ?? 1000,
      ...(o.health ? { health: o.health } : {}),
    });
    this.delivery = new OutcomeDelivery({ ...o, held: this.held });
    this.urls = new WebhookUrls(o.secret, o.publicUrl);
    this.timer = setInterval(() => this.tick(), 250);
    this.timer.unref();
  }

  webhookUrl(run: RunScope, endpointId: string, attempt: number, inlineLimit: number, ttlMs?: number): string {
    return this.urls.job(run, endpointId, attempt, inlineLimit, ttlMs);
  }

  batchWebhookUrl(run: RunScope, endpointId: string, index: number, attempt: number, ttlMs?: number): string {
    return this.urls.batch(run, endpointId, index, attempt, ttlMs);
  }

  batchJobSent(run: RunScope, index: number, attempt: number, remoteJobId: string): void {
    this.batches.set(run, index, attempt, remoteJobId);
  }

  /** What the path segments after `/hooks/` speak for, or why they are refused. */
  verify(segments: string[]): { target: WebhookTarget } | { refused: WebhookRefusal } {
    return this.urls.verify(segments);
  }

  /**
   * A verified call whose body could not be taken (over the cap): a job workflow's waits held
   * here are polled at once instead of at their next fallback poll (a batch polls its late jobs).
   */
  bodyRefused(target: WebhookTarget): void {
    if (target.kind === 'job') this.held.pollSoon(target.run.workflowId);
  }

  register(reg: AwaitRegistration): RemoteOutcome | undefined {
    const k = key(reg.workflowId, reg.remoteJobId, reg.retries);
    const early = this.delivery.takeEarly(k);
    if (early) return early;
    this.held.hold(k, reg);
    return undefined;
  }

  /**
   * A webhook call from the service whose URL verified. The body (`hint`) is the outcome when it
   * names the URL's own job, else what `/status` says of the job it names (worker/webhook-trust.ts).
   * A job already handled here, not finished, gone, or not the URL's own job changes nothing.
   */
  async onWebhook(target: WebhookTarget, hint: JobRecord): Promise<WebhookAnswer> {
    const { run } = target;
    if (this.handled.has(key(run.workflowId, hint.id, hint.retries ?? 0))) return { status: 200, result: 'replay' };
    if (isTerminal(hint.status)) this.o.health?.received(hint.id, target.kind === 'batch' ? run.workflowId : undefined);
    const trusted = await trustedRecord(target, hint, {
      ...this.o,
      batches: this.batches,
      confirm: this.o.confirm ?? 'binding',
    });
    if ('answer' in trusted) return trusted.answer;
    const { record } = trusted;
    const retries = typeof record.retries === 'number' ? record.retries : 0;
    const k = key(run.workflowId, record.id, retries);
    if (this.handled.has(k)) return { status: 200, result: 'replay' };
    remember(this.handled, k);
    const started = Date.now();
    try {
      // A batch URL names its input: a step matches the job to it even before the /run answer came;
      // not a job another submission's answer named (the URL's own binding is checked above).
      const own = this.batches.get(run, target.index ?? -1, target.attempt) === record.id;
      const claimable = target.index !== undefined && (own || !this.batches.hasJob(record.id));
      const claim = claimable ? { i: target.index!, a: target.attempt } : undefined;
      if (target.kind === 'batch') {
        await this.o.inbox?.put(run, record, claim);
        // Its binding is done with (a failed job may be retried under the same URL: kept until it completes).
        if (record.status === 'COMPLETED') this.batches.delete(run, target.index ?? -1, target.attempt);
      } else await this.delivery.complete(target, record, retries, k);
    } catch (err) {
      this.handled.delete(k); // not handled: the service's next try is no replay
      throw err;
    }
    this.o.metrics.notice('webhook', (Date.now() - started) / 1000);
    return { status: 200, result: 'accepted' };
  }

  close(): void {
    clearInterval(this.timer);
    this.held.clear();
  }

  /**
   * Gives the waits this daemon holds back to Temporal (on shutdown): each fails with a retryable
   * DAEMON_SHUTDOWN, so another daemon takes it up within a second instead of after the 30 s
   * heartbeat timeout.
   */
  async handOver(): Promise<number> {
    clearInterval(this.timer);
    return this.held.handOver();
  }

  /** How many waits this daemon holds (for /readyz and tests). */
  get waiting(): number {
    return this.held.size;
  }

  /** Cares for the waits held here (heartbeats, late webhooks), and offers early webhooks again or drops them after an hour. */
  private tick(): void {
    const now = Date.now();
    this.held.tick(now);
    this.delivery.offerAgain(now);
  }
}
