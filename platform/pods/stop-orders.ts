/** The stop orders of one worker, handed out (and re-sent) by `job-stop`. */
/** How long a stop order is re-sent before it is given up. */
const ORDER_TTL_MS = 30_000;
/** Least time between two sendings of one order (the stock SDK polls again at once). */
const RESEND_MS = 1000;

/**
 * The stop orders of one worker (cancel, timeout, ttl of a job it runs), handed out by
 * `job-stop`. An order is sent again until the worker's ping no longer lists the job: the stock
 * SDK ignores an order that arrives before its handler task exists, so one sending can be lost.
 */
export class StopOrders {
  private readonly orders = new Map<string, { since: number; sentAt?: number }>();
  private waiter: (() => void) | undefined;

  add(jobId: string): void {
    this.orders.set(jobId, { since: Date.now() });
    this.waiter?.();
  }

  /** The job was handed to this worker again (after `/retry`): an old order must not stop it. */
  forget(jobId: string): void {
    this.orders.delete(jobId);
  }

  /** The worker's ping: the jobs it runs now. Orders already sent for jobs it no longer runs are done. */
  running(jobIds: readonly string[]): void {
    for (const [id, o] of this.orders) if (o.sentAt !== undefined && !jobIds.includes(id)) this.orders.delete(id);
  }

  get size(): number {
    return this.orders.size;
  }

  /** Wakes a waiting `job-stop` with nothing (the worker is being stopped). */
  release(): void {
    this.waiter?.();
  }

  /** The orders due now, waiting up to `waitMs` for one; [] when the caller hung up. */
  async next(waitMs: number, signal: AbortSignal): Promise<string[]> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      if (signal.aborted) return [];
      const now = Date.now();
      const due: string[] = [];
      let nextAt = deadline;
      for (const [id, o] of this.orders) {
        if (now - o.since > ORDER_TTL_MS) this.orders.delete(id);
        else if (o.sentAt === undefined || now - o.sentAt >= RESEND_MS) due.push(id);
        else nextAt = Math.min(nextAt, o.sentAt + RESEND_MS);
      }
      if (due.length > 0) {
        for (const id of due) this.orders.get(id)!.sentAt = now;
        return due;
      }
      if (now >= deadline) return [];
      const woken = await this.sleep(nextAt - now, signal);
      if (woken === 'released') return [];
    }
  }

  private sleep(ms: number, signal: AbortSignal): Promise<'timer' | 'woken' | 'released'> {
    return new Promise((resolve) => {
      const finish = (why: 'timer' | 'woken' | 'released'): void => {
        clearTimeout(t);
        signal.removeEventListener('abort', onAbort);
        if (this.waiter === onWake) this.waiter = undefined;
        resolve(why);
      };
      const onAbort = (): void => finish('released');
      const onWake = (): void => finish(this.orders.size > 0 ? 'woken' : 'released');
      const t = setTimeout(() => finish('timer'), Math.max(0, ms));
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiter = onWake;
    });
  }
}
