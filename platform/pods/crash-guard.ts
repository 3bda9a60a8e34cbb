/** Per-endpoint memory of crashing workers: restart back-off and releases that crash at start. */
/**
 * Per-endpoint memory of workers that exit without being asked to: the growing restart back-off,
 * and whether the current release's command is known to crash at start (then a rolling release
 * stops retiring old workers, which keep serving).
 */
export class CrashGuard {
  private readonly crashes = new Map<string, { count: number; until: number }>();
  /** Endpoints whose last unexpected worker exit came before the worker ever asked for a job. */
  private readonly failingStart = new Set<string>();
  /** The endpoint version the records belong to. */
  private readonly versions = new Map<string, number>();

  /** The endpoint is at `version`: a new release runs a new command, so the old one's crashes are forgotten. */
  release(endpointId: string, version: number): void {
    if (this.versions.get(endpointId) === version) return;
    this.versions.set(endpointId, version);
    this.crashes.delete(endpointId);
    this.failingStart.delete(endpointId);
  }

  /**
   * A worker exited unexpectedly after running `ranMs`. Quick crashes (under 10 s) grow the
   * back-off (0.5 s × 2^n, at most 30 s); a worker that ran longer starts the count afresh.
   */
  crashed(endpointId: string, ranMs: number, beforeReady: boolean, now: number): void {
    if (beforeReady) this.failingStart.add(endpointId);
    const c = this.crashes.get(endpointId) ?? { count: 0, until: 0 };
    c.count = ranMs < 10_000 ? c.count + 1 : 0;
    c.until = now + Math.min(30_000, 500 * 2 ** Math.min(c.count, 6));
    this.crashes.set(endpointId, c);
  }

  /** A worker asked for its first job, so its command works. True when that unblocks a release. */
  ready(endpointId: string): boolean {
    return this.failingStart.delete(endpointId);
  }

  /** No worker may be started now (back-off after a crash). */
  inBackoff(endpointId: string, now: number): boolean {
    const c = this.crashes.get(endpointId);
    return !!c && c.until > now;
  }

  /** The last unexpected exit came before the worker was ready: the release must not advance. */
  failingAtStart(endpointId: string): boolean {
    return this.failingStart.has(endpointId);
  }
}
