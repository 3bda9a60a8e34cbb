/**
 * An offline model of bench/scaler: the trace, the platform's pool (REQUEST_COUNT 1, idleTimeout,
 * a cold start per worker) and the scaler's real policy (`decide`/`remember`) ticking on model time,
 * to compare policies in seconds before a real replay. A model, not a measure: bench/README's figures
 * come from index.ts.
 *
 *   npx tsx bench/scaler/simulate.ts [--config '{"warmHoldMs":2000}'] [--cold 2000] [--tick 1000] [--mode scaler,static-ceiling,clairvoyant]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ScalerOptions, type Bounds, type HealthSample, type ScalerOptionsInput } from '../../contracts';
import { decide, remember, type PolicyMemory } from '../../workflows/scaler/policy';
import { boundsChanges, percentile, reversals, round } from './metrics';
import { fixedOracle, liveWorkers, oracle } from './oracle';
import { traceJobs, type Trace } from './replay';

const { values } = parseArgs({
  options: {
    config: { type: 'string' },
    cold: { type: 'string' },
    tick: { type: 'string' },
    mode: { type: 'string' },
    speed: { type: 'string' },
    stop: { type: 'string' },
    idle: { type: 'string' },
  },
});
const SPEED = Number(values.speed ?? 10);
const COLD = Number(values.cold ?? 2000);
const STOP = Number(values.stop ?? 300);
const TICK = Number(values.tick ?? 1000);
const IDLE = Number(values.idle ?? 1000);
const CEILING = 6;
const trace = JSON.parse(readFileSync(join(__dirname, 'trace.json'), 'utf8')) as Trace;
const scaled = (ms: number): number => Math.max(200, Math.round(ms / SPEED));

interface Pod {
  createdAt: number;
  readyAt: number;
  job?: number;
  idleSince: number;
  draining: boolean;
  endAt?: number;
  stopAt?: number;
}
interface Job {
  at: number;
  ms: number;
  start?: number;
  pod?: number;
}

export function simulate(mode: string, extra: ScalerOptionsInput): Record<string, unknown> {
  const d = ScalerOptions.parse({});
  const config = ScalerOptions.parse({
    ceiling: CEILING,
    intervalMs: scaled(d.intervalMs),
    stabilizationWindowMs: scaled(d.stabilizationWindowMs),
    cooldownMs: scaled(d.cooldownMs),
    minWriteGapMs: scaled(d.minWriteGapMs),
    backlogScanMs: 0,
    scaleUp: { ...d.scaleUp, periodMs: scaled(d.scaleUp.periodMs) },
    ...extra,
  });
  let bounds: Bounds = mode === 'scaler' ? { workersMin: 0, workersMax: 1 } : { workersMin: 0, workersMax: CEILING };
  let memory: PolicyMemory = { target: 0, history: [], known: { ...bounds } };
  const jobs: Job[] = traceJobs(trace, SPEED);
  // The fixed oracle: the best service the ceiling allows (six warm workers), at the least worker time.
  const fixed = fixedOracle(jobs, CEILING, COLD);
  // `clairvoyant`: bounds that follow the fixed oracle's own plan (workersMin = workersMax = its live workers).
  const planned = (t: number): number => liveWorkers(fixed, t, TICK);
  const pods: Pod[] = [];
  const samples: HealthSample[] = [];
  const series: { at: number; workersMin: number; workersMax: number; live: number; ready: number; busy: number }[] =
    [];
  let completed = 0;
  let writes = 0;
  const end = (trace.durationS * 1000) / SPEED;
  const STEP = 10;
  for (let t = 0; t <= end + 20_000; t += STEP) {
    // Jobs end; idle pods take queued jobs.
    for (const p of pods) {
      if (p.job !== undefined && jobs[p.job]!.start! + jobs[p.job]!.ms <= t) {
        p.job = undefined;
        p.idleSince = t;
        completed++;
      }
      if (p.stopAt !== undefined && p.endAt === undefined && t >= p.stopAt) p.endAt = t;
    }
    const live = (): Pod[] => pods.filter((p) => p.endAt === undefined && p.stopAt === undefined);
    for (const [pi, p] of pods.entries()) {
      if (p.endAt !== undefined || p.stopAt !== undefined || p.draining || p.readyAt > t || p.job !== undefined)
        continue;
      const j = jobs.findIndex((x) => x.at <= t && x.start === undefined);
      if (j < 0) break;
      jobs[j]!.start = t;
      jobs[j]!.pod = pi;
      p.job = j;
    }
    // The pool's plan every 200 ms.
    if (t % 200 === 0) {
      const queued = jobs.filter((x) => x.at <= t && x.start === undefined).length;
      const active = live().filter((p) => !p.draining);
      const inProgress = active.filter((p) => p.job !== undefined).length;
      const want = Math.min(bounds.workersMax, Math.max(bounds.workersMin, queued + inProgress));
      if (active.length < want) {
        const n = want - active.length;
        const starting = active.filter((p) => p.readyAt > t).length + n;
        for (let k = 0; k < n; k++)
          pods.push({ createdAt: t, readyAt: t + COLD + 150 * (starting - 1), idleSince: t, draining: false });
      } else if (active.length > bounds.workersMax) {
        const extra = [...active]
          .sort((a, b) => (a.job === undefined ? 0 : 1) - (b.job === undefined ? 0 : 1))
          .slice(0, active.length - bounds.workersMax);
        for (const p of extra) p.draining = true;
      } else {
        let surplus = active.length - Math.max(bounds.workersMin, want);
        for (const p of active) {
          if (surplus <= 0) break;
          if (p.readyAt <= t && p.job === undefined && t - p.idleSince >= IDLE) {
            p.draining = true;
            surplus--;
          }
        }
      }
      for (const p of live()) if (p.draining && p.job === undefined) p.stopAt = t + STOP;
    }
    if (mode === 'clairvoyant' && t % TICK === 0)
      bounds = { workersMin: planned(t), workersMax: Math.max(1, planned(t)) };
    // The scaler's tick.
    if (mode === 'scaler' && t % TICK === 0) {
      const l = live();
      const queued = jobs.filter((x) => x.at <= t && x.start === undefined).length;
      const busy = l.filter((p) => p.job !== undefined).length;
      samples.push({
        at: t,
        ok: true,
        inQueue: queued,
        inProgress: busy,
        running: busy,
        idle: l.filter((p) => p.readyAt <= t && p.job === undefined).length,
        initializing: l.filter((p) => p.readyAt > t).length,
        completed,
      });
      if (samples.length > 12) samples.shift();
      const input = { now: t, config, samples, bounds, memory, healthFailures: 0 };
      const dec = decide(input);
      if (dec.write) {
        bounds = { ...dec.bounds };
        writes++;
      }
      memory = remember(input, dec, true);
    }
    const l = live();
    const s = {
      at: t,
      ...bounds,
      live: l.length,
      ready: l.filter((p) => p.readyAt <= t).length,
      busy: l.filter((p) => p.job !== undefined).length,
    };
    const last = series.at(-1);
    if (!last || last.workersMin !== s.workersMin || last.workersMax !== s.workersMax) series.push(s);
  }
  const workerMs = pods.reduce(
    (n, p) => n + Math.max(0, Math.min(p.endAt ?? end, end) - Math.min(p.createdAt, end)),
    0,
  );
  const delays = jobs.map((j) => j.start! - j.at);
  const o = oracle(
    jobs.map((j, i) => ({ at: j.at, ms: j.ms, delayMs: delays[i]! })),
    0,
    COLD,
  );
  const changes = boundsChanges(series.filter((x) => x.at <= end));
  const minChanges = changes.map((c, i) => ({
    ...c,
    up: c.workersMin > (i ? changes[i - 1]!.workersMin : 0),
    down: c.workersMin < (i ? changes[i - 1]!.workersMin : 0),
  }));
  const maxChanges = changes.map((c, i) => ({
    ...c,
    up: c.workersMax > (i ? changes[i - 1]!.workersMax : series[0]!.workersMax),
    down: c.workersMax < (i ? changes[i - 1]!.workersMax : series[0]!.workersMax),
  }));
  return {
    mode,
    workerS: round(workerMs / 1000, 1),
    oracleS: round(o.workerMs / 1000, 1),
    busyS: round(o.busyMs / 1000, 1),
    ratio: round(workerMs / o.workerMs, 2),
    fixedOracleS: round(fixed.workerMs / 1000, 1),
    fixedRatio: round(workerMs / fixed.workerMs, 2),
    p50: round(percentile(delays, 50)),
    p99: round(percentile(delays, 99)),
    pods: pods.length,
    writes,
    changes: changes.length,
    reversals: reversals(changes, config.stabilizationWindowMs),
    maxReversals: reversals(maxChanges, config.stabilizationWindowMs),
    minReversals: reversals(minChanges, config.stabilizationWindowMs),
  };
}

if (require.main === module) {
  const extra = values.config ? (JSON.parse(values.config) as ScalerOptionsInput) : {};
  for (const mode of (values.mode ?? 'scaler,static-ceiling').split(','))
    console.log(JSON.stringify(simulate(mode, extra)));
}
