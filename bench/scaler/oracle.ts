/**
 * The oracle of bench/scaler: knows every job's arrival and execution time in advance and plans
 * workers to serve each job within a queue delay (one for all, or each job's own), paying as little worker time as it can: a worker
 * costs from the start of its cold start to its stop; a worker idle longer than a cold start is
 * stopped and started again just in time (it pays min(gap, cold start) for a gap). Also the best
 * service a ceiling allows ({@link ceilingDelays}), the delays the fixed oracle is held to.
 */

export interface OracleJob {
  /** Arrival, ms (any origin). */
  at: number;
  /** Execution time, ms. */
  ms: number;
  /** This job's queue delay at most, ms (else the delay given to {@link oracle}). */
  delayMs?: number;
}

export interface OracleResult {
  /** Worker time planned, ms (cold starts, execution, idle gaps kept warm). */
  workerMs: number;
  /** Execution time alone, ms: no plan pays less. */
  busyMs: number;
  /** Workers the plan uses (each one is reused, stopped over long gaps). */
  workers: number;
  /** The largest queue delay of the plan, ms (at most the delay asked for). */
  maxDelayMs: number;
  /** When the plan's workers live, ms: one span per run of a worker (its cold start to its last job's end). */
  spans: { from: number; to: number }[];
}

/**
 * Each job's queue delay with `ceiling` workers warm all the time, first come first served: the
 * best service the ceiling allows, whatever the cost (the jobs in `jobs` order, sorted by arrival).
 */
export function ceilingDelays(jobs: OracleJob[], ceiling: number): number[] {
  const free: number[] = Array.from({ length: ceiling }, () => -Infinity);
  const order = jobs.map((j, i) => ({ j, i })).sort((a, b) => a.j.at - b.j.at);
  const out: number[] = new Array<number>(jobs.length).fill(0);
  for (const { j, i } of order) {
    let w = 0;
    for (let k = 1; k < free.length; k++) if (free[k]! < free[w]!) w = k;
    const start = Math.max(j.at, free[w]!);
    free[w] = start + j.ms;
    out[i] = start - j.at;
  }
  return out;
}

/**
 * A greedy plan in arrival order: each job goes where it adds the least worker time (a worker that
 * frees within the delay adds nothing; an idle worker adds its gap, at most a cold start; a new
 * worker adds a cold start, started ahead so the job does not wait). Not proven minimal: an upper
 * bound of the true minimum, with `busyMs` as a lower bound.
 */
export function oracle(jobs: OracleJob[], delayMs: number, coldMs: number): OracleResult {
  const sorted = [...jobs].sort((a, b) => a.at - b.at);
  const free: number[] = [];
  // Per worker, its current span (index into spans).
  const run: number[] = [];
  const spans: { from: number; to: number }[] = [];
  let workerMs = 0;
  let busyMs = 0;
  let maxDelayMs = 0;
  for (const j of sorted) {
    busyMs += j.ms;
    const d = j.delayMs ?? delayMs;
    // A busy worker that frees within the delay: no extra worker time (the earliest to free).
    let wait = -1;
    for (let i = 0; i < free.length; i++)
      if (free[i]! > j.at && free[i]! <= j.at + d && (wait < 0 || free[i]! < free[wait]!)) wait = i;
    // An idle worker: the one idle the shortest (its gap is paid, at most a cold start).
    let idle = -1;
    for (let i = 0; i < free.length; i++) if (free[i]! <= j.at && (idle < 0 || free[i]! > free[idle]!)) idle = i;
    const idleCost = idle >= 0 ? Math.min(j.at - free[idle]!, coldMs) : Infinity;
    if (wait >= 0 && (idle < 0 || idleCost > 0)) {
      maxDelayMs = Math.max(maxDelayMs, free[wait]! - j.at);
      free[wait] = free[wait]! + j.ms;
      spans[run[wait]!]!.to = free[wait]!;
      workerMs += j.ms;
    } else if (idle >= 0) {
      // Kept warm over a gap shorter than a cold start; else stopped and started again in time.
      if (j.at - free[idle]! < coldMs) spans[run[idle]!]!.to = j.at + j.ms;
      else run[idle] = spans.push({ from: j.at - coldMs, to: j.at + j.ms }) - 1;
      free[idle] = j.at + j.ms;
      workerMs += idleCost + j.ms;
    } else {
      free.push(j.at + j.ms);
      run.push(spans.push({ from: j.at - coldMs, to: j.at + j.ms }) - 1);
      workerMs += coldMs + j.ms;
    }
  }
  return { workerMs, busyMs, workers: free.length, maxDelayMs, spans };
}

/** The fixed oracle: every job no later than {@link ceilingDelays} allows, at the least worker time (one yardstick for every mode). */
export function fixedOracle(jobs: OracleJob[], ceiling: number, coldMs: number): OracleResult {
  const best = ceilingDelays(jobs, ceiling);
  return oracle(
    jobs.map(({ at, ms }, i) => ({ at, ms, delayMs: best[i]! })),
    0,
    coldMs,
  );
}

/** The plan's workers alive at some point of [t, t + ms): what a clairvoyant writes as both bounds. */
export function liveWorkers(plan: OracleResult, t: number, ms: number): number {
  return plan.spans.filter((x) => x.from < t + ms && x.to > t).length;
}
