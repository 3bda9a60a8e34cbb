/** The deadline heap: when each job next needs the sweeper. */
/**
 * A min-heap of (time, job id): when each job next needs a look from the sweeper (ttl,
 * executionTimeout, end of retention). Entries are hints: a job whose state changed since is
 * re-checked against its current deadlines, so stale entries cost one look and nothing else.
 */
export class Deadlines {
  private readonly heap: { at: number; id: string }[] = [];

  get size(): number {
    return this.heap.length;
  }

  push(at: number, id: string): void {
    const h = this.heap;
    h.push({ at, id });
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.at <= h[i]!.at) break;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
  }

  /** Drops every entry (before a rebuild from the jobs that still exist). */
  clear(): void {
    this.heap.length = 0;
  }

  /** Removes and returns the ids of every entry due at `now`. */
  popDue(now: number): string[] {
    const out: string[] = [];
    const h = this.heap;
    while (h.length > 0 && h[0]!.at <= now) {
      out.push(h[0]!.id);
      const last = h.pop()!;
      if (h.length === 0) break;
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l]!.at < h[m]!.at) m = l;
        if (r < h.length && h[r]!.at < h[m]!.at) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return out;
  }
}
