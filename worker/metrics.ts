import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { type WebhookHealth } from '../results/webhook-health';
import { type ActivityMetrics } from '../common/metrics';
import { type StoreStats } from '../results/store/object-store';

/** sluice's own Prometheus metrics; Temporal's runtime metrics are appended at scrape time. */
export class DaemonMetrics implements ActivityMetrics {
  readonly registry = new Registry();
  private readonly calls = new Counter({
    name: 'sluice_http_calls_total',
    help: 'HTTP calls to the serverless service, by operation and outcome',
    labelNames: ['operation', 'outcome'],
    registers: [this.registry],
  });
  private readonly limited = new Counter({
    name: 'sluice_http_rate_limited_total',
    help: '429 answers from the service, by operation',
    labelNames: ['operation'],
    registers: [this.registry],
  });
  private readonly jobs = new Counter({
    name: 'sluice_remote_jobs_total',
    help: 'Remote jobs seen finishing, by status and how the orchestrator learnt it',
    labelNames: ['status', 'via'],
    registers: [this.registry],
  });
  private readonly webhooks = new Counter({
    name: 'sluice_webhooks_total',
    help: 'Webhook calls received, by result',
    labelNames: ['result'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'sluice_completion_notice_seconds',
    help: 'Time from a completion notice (webhook) to the waiting activity being completed',
    labelNames: ['via'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  /** The results store's own counters, read at scrape time (see {@link observeStore}). */
  private store?: StoreStats;
  private readonly earlyDropped = new Counter({
    name: 'sluice_early_webhooks_dropped_total',
    help: 'Webhooks that came before their wait, dropped to keep the early-webhook table within its bounds',
    labelNames: ['bound'],
    registers: [this.registry],
  });
  private readonly storeRequests = new Counter({
    name: 'sluice_store_requests_total',
    help: 'Requests of the results store to its backend (S3 commands, or filesystem calls), by operation',
    labelNames: ['op'],
    registers: [this.registry],
    collect: () => this.collectStore(),
  });
  private readonly storeBytes = new Counter({
    name: 'sluice_store_bytes_total',
    help: 'Bytes the results store wrote and read, by direction',
    labelNames: ['dir'],
    registers: [this.registry],
  });

  /** Whether webhooks reach the daemon, read at scrape time (see {@link observeWebhooks}). */
  private health?: WebhookHealth;
  private readonly webhooksHealthy = new Gauge({
    name: 'sluice_webhooks_healthy',
    help: '1 while webhooks reach the daemon, 0 once they stopped and jobs are polled (check SLUICE_PUBLIC_URL)',
    registers: [this.registry],
    collect: () => this.collectWebhooks(),
  });
  private readonly fallbackPolls = new Counter({
    name: 'sluice_webhook_fallback_polls_total',
    help: '/status polls made because a webhook was late or webhooks stopped',
    registers: [this.registry],
  });
  private readonly webhooksMissed = new Counter({
    name: 'sluice_webhooks_missed_total',
    help: 'Jobs a poll found finished whose webhook never came',
    registers: [this.registry],
  });

  private readonly reapedActivities = new Counter({
    name: 'sluice_dead_daemon_activities_reaped_total',
    help: "Activities a dead daemon of this host had started, failed at this daemon's start so they retry at once",
    registers: [this.registry],
  });

  constructor() {
    // prom-client's names already start with process_ / nodejs_: the prefix is sluice_ alone.
    collectDefaultMetrics({ register: this.registry, prefix: 'sluice_' });
  }

  /**
   * Exposes a results store's counters (`ObjectStore.stats`) as `sluice_store_requests_total{op}`
   * and `sluice_store_bytes_total{dir="written"|"read"}`.
   */
  observeStore(stats: StoreStats): void {
    this.store = stats;
  }

  /** Exposes the webhook health as `sluice_webhooks_healthy`, `sluice_webhook_fallback_polls_total` and `sluice_webhooks_missed_total`. */
  observeWebhooks(health: WebhookHealth): void {
    this.health = health;
  }

  private collectWebhooks(): void {
    if (!this.health) return;
    const s = this.health.snapshot();
    this.webhooksHealthy.set(s.completion === 'webhooks' ? 1 : 0);
    this.fallbackPolls.reset();
    this.fallbackPolls.inc(s.fallbackPolls);
    this.webhooksMissed.reset();
    this.webhooksMissed.inc(s.missed);
  }

  private collectStore(): void {
    const s = this.store;
    if (!s) return;
    // Absolute values copied from the store's counters on each scrape (they only grow).
    this.storeRequests.reset();
    for (const [op, n] of Object.entries(s.requests)) this.storeRequests.inc({ op }, n);
    this.storeBytes.reset();
    this.storeBytes.inc({ dir: 'written' }, s.bytesWritten);
    this.storeBytes.inc({ dir: 'read' }, s.bytesRead);
  }

  httpCall(operation: string, outcome: string): void {
    this.calls.inc({ operation, outcome });
  }

  /**
   * A 429 answer of the service, told by the clients' HTTP core for every attempt: a call whose
   * 429s were retried (or that was abandoned while it waited them out) ends `ok` or not at all.
   */
  rateLimited(operation: string): void {
    this.limited.inc({ operation });
  }

  remoteJobFinished(status: string, via: string): void {
    this.jobs.inc({ status, via });
  }

  /** A webhook call and what became of it (accepted, or why it changed nothing: worker/http-server.ts). */
  webhook(result: string): void {
    this.webhooks.inc({ result });
  }

  /** Activities of dead daemons failed for a retry at this daemon's start (worker/reap.ts). */
  reaped(n: number): void {
    this.reapedActivities.inc(n);
  }

  earlyWebhookDropped(bound: 'entries' | 'bytes'): void {
    this.earlyDropped.inc({ bound });
  }

  notice(via: string, seconds: number): void {
    this.latency.observe({ via }, seconds);
  }
}
