/**
 * Whether webhooks reach this daemon: jobs a poll found finished whose webhook never came (misses)
 * against webhooks received. After a few misses in a row the daemon (or one batch run) is `polling`:
 * its jobs are polled at a steady cadence; webhooks coming again bring it back. Beside the
 * completion hub, below the activities (which poll) and the daemon's receiver (which is called).
 */

/** Options of {@link WebhookHealth}. */
export interface WebhookHealthOptions {
  /**
   * Misses in a row (no webhook between them) that turn a scope to polling.
   * @default 3
   */
  misses?: number;
  /**
   * Webhooks received while polling that turn a scope back to webhooks.
   * @default 2
   */
  returns?: number;
  /**
   * How long after a job finished (as far as a poll tells) its webhook may still come before it counts as missed, ms.
   * @default 500
   */
  graceMs?: number;
  /** Told once per change of the daemon's state (`scope` absent) or of a batch run's. */
  onChange?: (healthy: boolean, scope: string | undefined, s: WebhookHealthSnapshot) => void;
}

/** What `/readyz` and the metrics show. */
export interface WebhookHealthSnapshot {
  /** `webhooks` while webhooks arrive, `polling` once they stopped. */
  completion: 'webhooks' | 'polling';
  received: number;
  missed: number;
  /** `/status` polls made because a webhook was late or webhooks are off. */
  fallbackPolls: number;
  /** When the state last changed (ms since epoch). */
  since: number;
}

interface ScopeState {
  healthy: boolean;
  streak: number;
  /** When its last webhook came (ms since epoch; 0: never). */
  heardAt: number;
  back: number;
  since: number;
}

/** The daemon's scope key. */
const DAEMON = '';

export class WebhookHealth {
  private readonly scopes = new Map<string, ScopeState>();
  /** Jobs a poll saw finished, waiting for their webhook's grace: id → [scope, when]. */
  private readonly suspects = new Map<string, [string, number]>();
  /** Ids whose webhook came (bounded: the latest few thousand). */
  private readonly heard = new Set<string>();
  private receivedCount = 0;
  private missed = 0;
  private polls = 0;
  /** When the last webhook came (ms since epoch; 0: never). */
  lastReceivedAt = 0;

  constructor(private readonly o: WebhookHealthOptions = {}) {}

  /** A webhook of job `id` came (to this daemon, or to a batch's inbox). */
  received(id: string, scope?: string): void {
    this.receivedCount++;
    this.lastReceivedAt = Date.now();
    this.heard.add(id);
    if (this.heard.size > 10_000) this.heard.delete(this.heard.values().next().value!);
    const was = this.suspects.get(id);
    this.suspects.delete(id);
    for (const k of new Set([DAEMON, scope ?? was?.[0] ?? DAEMON])) this.hit(k);
  }

  /**
   * A poll saw job `id` finished (`ago` ms ago, when known): its webhook should come within the
   * grace of its end, or it counts as missed.
   */
  polledDone(id: string, scope?: string, ago = 0): void {
    if (!this.heard.has(id)) this.suspects.set(id, [scope ?? DAEMON, Date.now() - Math.max(0, ago)]);
  }

  /** One fallback or steady `/status` poll made. */
  polled(n = 1): void {
    this.polls += n;
  }

  /** True while webhooks arrive for the daemon and for `scope` (a batch run), as far as known. */
  healthy(scope?: string): boolean {
    this.sweep(Date.now());
    return this.state(DAEMON).healthy && (scope === undefined || this.state(scope).healthy);
  }

  /** Forgets a batch run's own state (it ended). */
  forget(scope: string): void {
    this.scopes.delete(scope);
  }

  snapshot(scope = DAEMON): WebhookHealthSnapshot {
    this.sweep(Date.now());
    const s = this.state(scope);
    return {
      completion: s.healthy ? 'webhooks' : 'polling',
      received: this.receivedCount,
      missed: this.missed,
      fallbackPolls: this.polls,
      since: s.since,
    };
  }

  private state(scope: string): ScopeState {
    let s = this.scopes.get(scope);
    if (!s) this.scopes.set(scope, (s = { healthy: true, streak: 0, back: 0, since: Date.now(), heardAt: 0 }));
    return s;
  }

  /** Suspects past their grace are misses. */
  private sweep(now: number): void {
    const grace = this.o.graceMs ?? 500;
    for (const [id, [scope, at]] of this.suspects) {
      if (now - at < grace) continue;
      this.suspects.delete(id);
      this.missed++;
      for (const k of new Set([DAEMON, scope])) this.miss(k, at);
    }
  }

  /**
   * A miss of a job of `scope` that finished at `at`. Misses swept together are in a row only if no
   * webhook of the scope came after the job finished: one that did shows webhooks still arrive (this
   * one was lost), whenever the poll that found the job ran.
   */
  private miss(scope: string, at: number): void {
    const s = this.state(scope);
    s.back = 0;
    if (s.heardAt > at) return;
    s.streak++;
    if (s.healthy && s.streak >= (this.o.misses ?? 3)) this.turn(scope, s, false);
  }

  private hit(scope: string): void {
    const s = this.state(scope);
    s.streak = 0;
    s.heardAt = Date.now();
    if (!s.healthy && ++s.back >= (this.o.returns ?? 2)) this.turn(scope, s, true);
  }

  private turn(scope: string, s: ScopeState, healthy: boolean): void {
    s.healthy = healthy;
    s.back = 0;
    s.streak = 0;
    s.since = Date.now();
    this.o.onChange?.(healthy, scope === DAEMON ? undefined : scope, this.snapshot(scope));
  }
}
