/** One-shot wake-ups of long-polls (runsync, status-sync, stream) when a job changes. */
/**
 * Wakes long-polls (runsync, status-sync, stream) when a job changes. A watcher is a
 * one-shot callback; waiting is always bounded by a timeout.
 */
export class JobWatchers {
  private readonly watchers = new Map<string, Set<() => void>>();

  /** Resolves on the next change of `jobId` or after `ms`, whichever comes first. */
  next(jobId: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      let set = this.watchers.get(jobId);
      if (!set) this.watchers.set(jobId, (set = new Set()));
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        const s = this.watchers.get(jobId);
        s?.delete(done);
        if (s?.size === 0) this.watchers.delete(jobId);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener('abort', done, { once: true });
      set.add(done);
    });
  }

  /** Wakes every watcher of `jobId`. */
  notify(jobId: string): void {
    const set = this.watchers.get(jobId);
    if (!set) return;
    for (const w of [...set]) w();
  }
}
