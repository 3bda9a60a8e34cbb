/** The job-completion webhook, with its retries. */
import { request } from 'undici';
import { type Logger } from 'pino';
import { LIMITS, type JobRecord } from '../../contracts';
import { type WebhookFault } from '../faults/webhooks';

/** Options of {@link WebhookSender}; the defaults are the spec's. */
export interface WebhookOptions {
  /**
   * Retries after the first call.
   * @default 2
   */
  retries?: number;
  /**
   * Delay between tries, in ms.
   * @default 10000
   */
  retryDelayMs?: number;
  /**
   * Timeout of one call, in ms.
   * @default 10000
   */
  timeoutMs?: number;
}

/**
 * Sends the job-completion webhook: `POST <webhook>` with the job record as JSON. A non-200
 * answer or a failed call is retried `retries` more times. Runs detached from the job engine,
 * so a slow receiver never blocks the queue.
 */
export class WebhookSender {
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly timeoutMs: number;
  private readonly inflight = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly logger: Logger,
    options: WebhookOptions = {},
    /** The fault mode's draw per webhook (platform/faults); none when off. */
    private readonly fault?: () => WebhookFault,
  ) {
    this.retries = options.retries ?? LIMITS.webhookRetries;
    this.retryDelayMs = options.retryDelayMs ?? LIMITS.webhookRetryDelayMs;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  send(url: string, record: JobRecord): void {
    const p = this.withFault(url, record).finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }

  /** Delivers as the fault mode's draw says: not at all, later, twice, or with a reset after the first call. */
  private async withFault(url: string, record: JobRecord): Promise<void> {
    const f = this.fault?.();
    if (f?.kind) this.logger.debug({ fault: `webhook-${f.kind}`, url, jobId: record.id }, 'fault');
    if (f?.kind === 'lost') return;
    if (f?.kind === 'delay') await new Promise((r) => setTimeout(r, f.ms).unref());
    await this.deliver(url, record, f?.kind === 'reset');
    if (f?.kind === 'duplicate') await this.deliver(url, record, false);
  }

  /** `resetFirst`: the first call reaches the receiver, then counts as a reset connection (fault mode). */
  private async deliver(url: string, record: JobRecord, resetFirst: boolean): Promise<void> {
    let body: string;
    try {
      body = JSON.stringify(record);
    } catch (err) {
      // Outputs are checked against LIMITS.jsonDepth on the way in; this is the last guard.
      this.logger.error(
        { url, jobId: record.id, err: (err as Error).message },
        'webhook body could not be written; not sent',
      );
      return;
    }
    for (let attempt = 0; attempt <= this.retries && !this.closed; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, this.retryDelayMs).unref());
      try {
        const res = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'sluice-platform-webhook/1' },
          body,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
        });
        await res.body.dump();
        if (resetFirst && attempt === 0) throw new Error('ECONNRESET after the answer (fault mode: webhook-reset)');
        if (res.statusCode === 200) return;
        this.logger.warn({ url, jobId: record.id, status: res.statusCode, attempt }, 'webhook answered non-200');
      } catch (err) {
        this.logger.warn({ url, jobId: record.id, err: (err as Error).message, attempt }, 'webhook call failed');
      }
    }
    // On a shutdown the jobs still running end (their workers stop): their calls are left out, expectedly.
    if (this.closed) this.logger.info({ url, jobId: record.id }, 'webhook not sent: the platform is shutting down');
    else this.logger.error({ url, jobId: record.id }, 'webhook given up');
  }

  /** Stops retrying; in-flight calls finish on their own timeouts. */
  close(): void {
    this.closed = true;
  }
}
