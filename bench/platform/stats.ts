/** Summary statistics of latency samples (milliseconds). */
export interface Summary {
  n: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentile of ascending `sorted` (p in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    mean,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length > 0 ? sorted[sorted.length - 1]! : NaN,
  };
}

export const median = (values: readonly number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** Throughput of one timed phase: elapsed seconds and CPU µs of this process. */
export interface Phase {
  seconds: number;
  cpuUs: number;
}

/** Runs `loops` concurrent copies of `body` until `total` iterations were started. */
export async function runConcurrently(total: number, loops: number, body: () => Promise<void>): Promise<Phase> {
  let started = 0;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(loops, total) }, async () => {
      while (started < total) {
        started++;
        await body();
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { seconds, cpuUs: cpu.user + cpu.system };
}
