/**
 * One replay of a load trace against an endpoint of the embedded platform: submits the trace's
 * sleep jobs at their times (compressed by `speed`), samples the endpoint's bounds and its worker
 * pods every 50 ms (the platform's own records: created, ready, exited), and collects each job's
 * queue delay and execution time from `/status`.
 */
import { type Platform } from '../../platform';
import { call, waitForStatus } from '../../test/helpers/platform';

export interface TraceEvent {
  /** Recorded seconds from the start of the trace. */
  t: number;
  /** Jobs submitted at once. */
  n: number;
  /** Recorded execution time of each, ms. */
  ms: number;
  /** `burst` marks the bursts measured for time to raised bounds and to running workers. */
  tag?: string;
}
export interface Trace {
  name: string;
  durationS: number;
  about: string;
  events: TraceEvent[];
}

/** The endpoint at one moment (kept only when something changed). */
export interface Sample {
  at: number;
  workersMin: number;
  workersMax: number;
  live: number;
  ready: number;
  busy: number;
}
/** A worker pod's life as the platform recorded it. */
export interface PodSpan {
  id: string;
  createdAt: number;
  readyAt?: number;
  endAt?: number;
}
export interface JobRecord {
  at: number;
  id: string;
  tag?: string;
  n: number;
  delayMs: number;
  execMs: number;
  status: string;
}

export interface ReplayResult {
  t0: number;
  /** End of the trace's window (t0 + duration / speed). */
  windowEnd: number;
  jobs: JobRecord[];
  samples: Sample[];
  pods: PodSpan[];
  bursts: { at: number; n: number }[];
}

/** A trace event's execution time at `speed`, ms (at least 1). */
export const scaledMs = (ev: TraceEvent, speed: number): number => Math.max(1, Math.round(ev.ms / speed));

/** The trace's jobs at `speed`: arrival and execution time, ms from the start. */
export function traceJobs(trace: Trace, speed: number): { at: number; ms: number }[] {
  return trace.events.flatMap((e) =>
    Array.from({ length: e.n }, () => ({ at: (e.t * 1000) / speed, ms: scaledMs(e, speed) })),
  );
}

/** Replays `trace` on endpoint `ep` and waits for every job it submitted to end. */
export async function replay(platform: Platform, ep: string, trace: Trace, speed: number): Promise<ReplayResult> {
  const samples: Sample[] = [];
  const pods = new Map<string, PodSpan>();
  const sample = (): void => {
    const e = platform.registry.endpoint(ep);
    if (!e) return;
    const now = Date.now();
    let live = 0;
    let ready = 0;
    let busy = 0;
    for (const p of platform.pool.podsOf(ep)) {
      const span = pods.get(p.id) ?? { id: p.id, createdAt: p.createdAt };
      if (p.readyAt !== undefined) span.readyAt = p.readyAt;
      if (p.exit) span.endAt = p.exit.at;
      pods.set(p.id, span);
      if (p.phase === 'exited') continue;
      live++;
      if (p.phase === 'ready') ready++;
      if (p.jobs.size > 0) busy++;
    }
    // A pod forgotten before its exit was seen ends when it was last seen.
    const last = samples.at(-1);
    for (const span of pods.values())
      if (span.endAt === undefined && !platform.pool.pod(span.id)) span.endAt = last?.at ?? now;
    const s = { at: now, workersMin: e.workersMin, workersMax: e.workersMax, live, ready, busy };
    if (
      !last ||
      last.workersMin !== s.workersMin ||
      last.workersMax !== s.workersMax ||
      last.live !== live ||
      last.ready !== ready ||
      last.busy !== busy
    )
      samples.push(s);
  };
  const sampler = setInterval(sample, 50);
  const t0 = Date.now();
  const windowEnd = t0 + (trace.durationS * 1000) / speed;
  const submitted: Promise<{ at: number; id: string; tag?: string; n: number }[]>[] = [];
  const bursts: { at: number; n: number }[] = [];
  try {
    sample();
    for (const ev of trace.events) {
      const due = t0 + (ev.t * 1000) / speed;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      const at = Date.now();
      if (ev.tag === 'burst') bursts.push({ at, n: ev.n });
      const ms = scaledMs(ev, speed);
      submitted.push(
        Promise.all(
          Array.from({ length: ev.n }, async () => {
            const r = await call(platform.url, 'POST', `/v2/${ep}/run`, {
              key: platform.apiKey,
              body: { input: { ms } },
            });
            if (r.status !== 200) throw new Error(`submit: HTTP ${r.status} ${JSON.stringify(r.body)}`);
            return { at, id: r.body.id as string, n: ev.n, ...(ev.tag ? { tag: ev.tag } : {}) };
          }),
        ),
      );
    }
    if (windowEnd > Date.now()) await new Promise((r) => setTimeout(r, windowEnd - Date.now()));
    const sent = (await Promise.all(submitted)).flat();
    const jobs: JobRecord[] = [];
    for (const j of sent) {
      const st = await waitForStatus(
        platform.url,
        ep,
        j.id,
        ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'],
        180_000,
        platform.apiKey,
      );
      jobs.push({ ...j, delayMs: st.delayTime ?? NaN, execMs: st.executionTime ?? NaN, status: st.status });
    }
    sample();
    return { t0, windowEnd, jobs, samples, pods: [...pods.values()], bursts };
  } finally {
    clearInterval(sampler);
  }
}
