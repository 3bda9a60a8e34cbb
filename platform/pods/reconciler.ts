/** The reconcile loop: on a timer and soon after every change, each endpoint's pods are brought to its plan. */
import { type Endpoint } from '../../contracts';
import { isLive } from './pod';
import { type PodLifecycle } from './pod-lifecycle';
import { type PoolParts } from './pool-parts';
import { planEndpoint } from './pool-plan';

/** Runs {@link planEndpoint} for every endpoint and carries out its drains and spawns. */
export class Reconciler {
  private timer: NodeJS.Timeout | undefined;
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly parts: PoolParts,
    private readonly lifecycle: PodLifecycle,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.reconcileAll(), this.intervalMs);
    this.timer.unref();
    this.schedule();
  }

  /** Reconciles every endpoint soon (coalesced). */
  schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    // A few ms of coalescing: a burst of submissions and results costs one reconcile, not one each.
    setTimeout(() => {
      this.scheduled = false;
      this.reconcileAll();
    }, 5).unref();
  }

  /** Reconciles every endpoint now. */
  reconcileAll(): void {
    // Not before start(): pods need the platform's URL.
    if (this.closed || !this.timer) return;
    for (const e of this.parts.registry.allEndpoints()) this.reconcile(e);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
  }

  private reconcile(e: Endpoint): void {
    const now = Date.now();
    const plan = planEndpoint({
      endpoint: e,
      pods: this.parts.pods.ofEndpoint(e.id).filter(isLive),
      queued: this.parts.engine.queued(e.id),
      now,
      crashing: this.parts.crashes.failingAtStart(e.id),
      backoff: this.parts.crashes.inBackoff(e.id, now),
    });
    for (const d of plan.drain) this.lifecycle.drain(d.pod, d.why);
    for (let i = 0; i < plan.spawn; i++) this.lifecycle.spawn(e);
  }
}
