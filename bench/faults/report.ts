/** bench/faults' (and bench/job/faults') report of a row: its time beside fault-free and its goal, exactness, the faults applied; and a run's bound in time. */
import type { FaultRow } from './rows';

/** What a row's run measured: wall time (or the timeout it passed), the faults the platform applied, the exactness problems found. */
export interface RowRun {
  wallMs: number;
  timedOut: boolean;
  applied: Record<string, number>;
  problems: string[];
}

/** One line of the table: `r` against the fault-free run `free` of the same run (no `row`: the fault-free line itself). */
export function rowLine(
  r: RowRun,
  free: RowRun,
  timeoutMs: number,
  row?: FaultRow,
): Record<string, string | number | boolean> {
  const ratio = r.wallMs / free.wallMs;
  return {
    row: row?.title ?? 'fault-free',
    time: r.timedOut ? `> ${Math.round(timeoutMs / 1000)} s` : `${(r.wallMs / 1000).toFixed(1)} s`,
    xFaultFree: `${r.timedOut ? '> ' : ''}${ratio.toFixed(2)}x`,
    goal: row ? `<= ${row.goal}x` : '',
    met: row ? !r.timedOut && ratio <= row.goal : '',
    exact: r.timedOut ? 'n/a (stopped)' : r.problems.length === 0 ? 'yes' : r.problems.slice(0, 5).join('; '),
    applied: Object.entries(r.applied)
      .map(([k, v]) => `${k} ${v}`)
      .join(', '),
  };
}

/** `work`'s value, or 'timeout' once `ms` passed (the timer cleared either way). */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
