/**
 * bench/scaler: a recorded load trace (bursts, quiet, oscillation) replayed against the embedded
 * platform with the scaler and with static bounds, against an oracle that knows the trace:
 * time from a burst to raised bounds and to running workers, queue delay p50/p99, worker-seconds,
 * GraphQL writes per hour, decisions reversed within the stabilization window.
 *
 *   npx tsx bench/scaler/index.ts [--speed 10] [--ceiling 6] [--modes scaler,scaler-cost,static-ceiling,static-warm,clairvoyant] [--cold 2000]
 *                                  [--config '{"scaleUp":{"workers":6}}'] [--trace bench/scaler/trace.json] [--raw out.json] [--json]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ScalerClient } from '../../client/scaler';
import { ScalerOptions, type ScalerOptionsInput } from '../../contracts';
import { orchestratorStack } from '../../test/helpers/orchestrator';
import { addEndpoint, eventually, exampleCommand } from '../../test/helpers/platform';
import {
  boundReversals,
  boundsChanges,
  burstTimes,
  coldStartMs,
  percentile,
  reversals,
  round,
  workerMs,
} from './metrics';
import { fixedOracle, liveWorkers, oracle } from './oracle';
import { replay, traceJobs, type Trace } from './replay';
import { runBench } from '../main';

const { values } = parseArgs({
  options: {
    speed: { type: 'string' },
    ceiling: { type: 'string' },
    cold: { type: 'string' },
    modes: { type: 'string' },
    config: { type: 'string' },
    trace: { type: 'string' },
    json: { type: 'boolean' },
    raw: { type: 'string' },
  },
});
const SPEED = Number(values.speed ?? 10);
const CEILING = Number(values.ceiling ?? 6);
const MODES = (values.modes ?? 'scaler,scaler-cost,static-ceiling,static-warm').split(',');
const trace = JSON.parse(readFileSync(values.trace ?? join(__dirname, 'trace.json'), 'utf8')) as Trace;
const scaled = (ms: number): number => Math.max(200, Math.round(ms / SPEED));

/** The scaler's defaults with every duration divided by the speed, and the ceiling; `--config` on top (`scaler-cost`: warmHoldMs 0 below it). */
function scalerConfig(mode: string): ScalerOptions {
  const d = ScalerOptions.parse({});
  const base: ScalerOptionsInput = {
    ceiling: CEILING,
    intervalMs: scaled(d.intervalMs),
    stabilizationWindowMs: scaled(d.stabilizationWindowMs),
    cooldownMs: scaled(d.cooldownMs),
    minWriteGapMs: scaled(d.minWriteGapMs),
    backlogScanMs: scaled(d.backlogScanMs),
    scaleUp: { ...d.scaleUp, periodMs: scaled(d.scaleUp.periodMs) },
  };
  const cost: ScalerOptionsInput = mode === 'scaler-cost' ? { warmHoldMs: 0 } : {};
  return ScalerOptions.parse({
    ...base,
    ...cost,
    ...(values.config ? (JSON.parse(values.config) as ScalerOptionsInput) : {}),
  });
}

/**
 * `clairvoyant`: not a policy but a bound on what the bounds can do. It knows the trace: the fixed oracle's plan
 * (the best service the ceiling allows, at the least worker time, with a cold start of `--cold`) is written as both
 * bounds every 200 ms (workersMin = workersMax = the plan's live workers in the next 200 ms), straight into the registry.
 */
function clairvoyant(coldMs: number): (t: number) => { workersMin: number; workersMax: number } {
  const plan = fixedOracle(traceJobs(trace, SPEED), CEILING, coldMs);
  return (t) => {
    const n = liveWorkers(plan, t, 200);
    return { workersMin: n, workersMax: Math.max(1, n) };
  };
}

const BOUNDS: Record<string, { workersMin: number; workersMax: number }> = {
  clairvoyant: { workersMin: 0, workersMax: 1 },
  scaler: { workersMin: 0, workersMax: 1 },
  'scaler-cost': { workersMin: 0, workersMax: 1 },
  'static-ceiling': { workersMin: 0, workersMax: CEILING },
  'static-warm': { workersMin: CEILING, workersMax: CEILING },
};

async function main(): Promise<void> {
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  const load = [loadavg()[0]!];
  // Temporal on a SQLite file, as the embedded default runs it.
  const dbDir = mkdtempSync(join(tmpdir(), 'sluice-bench-scaling-'));
  const s = await orchestratorStack({ temporalDbFile: join(dbDir, 'temporal.sqlite') });
  const scaling = new ScalerClient({ client: s.env.client, resultsDir: s.resultsDir });
  const config = scalerConfig('scaler');
  const out: Record<string, unknown> = {
    trace: trace.name,
    recordedS: trace.durationS,
    speed: SPEED,
    replayS: trace.durationS / SPEED,
    ceiling: CEILING,
    jobs: trace.events.reduce((n, e) => n + e.n, 0),
    scaler: config,
    costMode: { warmHoldMs: scalerConfig('scaler-cost').warmHoldMs },
  };
  const runs: Record<string, Record<string, unknown>> = {};
  const raw: Record<string, unknown> = {};
  try {
    for (const mode of MODES) {
      const bounds = BOUNDS[mode];
      if (!bounds)
        throw new Error(`unknown mode ${mode}: scaler, scaler-cost, static-ceiling, static-warm or clairvoyant`);
      // idleTimeout: RunPod's default 5 s, scaled (at least 1 s).
      const ep = addEndpoint(s.platform, {
        name: `bench-${mode}`,
        command: exampleCommand('sleep'),
        ...bounds,
        idleTimeout: Math.max(1, Math.round(5 / SPEED)),
        scalerType: 'REQUEST_COUNT',
        scalerValue: 1,
      }).id;
      if (mode === 'static-warm') await eventually(() => s.platform.pool.workerCounts(ep).idle >= CEILING, 60_000, 100);
      const scaler = mode.startsWith('scaler');
      if (scaler) {
        await scaling.start(ep, scalerConfig(mode));
        await eventually(async () => (await scaling.status(ep)).ticks >= 1, 30_000, 100);
      }
      const ticksBefore = scaler ? (await scaling.status(ep)).ticks : 0;
      const plan = mode === 'clairvoyant' ? clairvoyant(Number(values.cold ?? 2000)) : undefined;
      const start = Date.now();
      const follow =
        plan &&
        setInterval(
          () => s.platform.registry.saveEndpoint({ ...s.platform.registry.endpoint(ep)!, ...plan(Date.now() - start) }),
          200,
        );
      const r = await replay(s.platform, ep, trace, SPEED).finally(() => clearInterval(follow));
      raw[mode] = r;
      const stateAt = Date.now();
      const state = scaler ? await scaling.status(ep) : undefined;
      if (scaler) await scaling.stop(ep);
      // Stop this mode's workers before the next one (they would compete for the CPU).
      s.platform.registry.saveEndpoint({ ...s.platform.registry.endpoint(ep)!, workersMin: 0, workersMax: 0 });
      const changes = boundsChanges(r.samples.filter((x) => x.at <= r.windowEnd));
      const delays = r.jobs.map((j) => j.delayMs);
      const windowMs = r.windowEnd - r.t0;
      runs[mode] = {
        completed: r.jobs.filter((j) => j.status === 'COMPLETED').length,
        delayP50Ms: round(percentile(delays, 50)),
        delayP99Ms: round(percentile(delays, 99)),
        delayMaxMs: round(percentile(delays, 100)),
        workerSeconds: round(workerMs(r.pods, r.t0, r.windowEnd) / 1000, 1),
        pods: r.pods.length,
        coldStartMs: round(coldStartMs(r.pods)),
        bursts: burstTimes(r, CEILING).map((b) => ({ ...b, at: round(b.at) })),
        writes: changes.length,
        writesPerRecordedHour: round((changes.length * 3600 * 1000) / (windowMs * SPEED), 1),
        reversals: reversals(changes, config.stabilizationWindowMs),
        reversalsOf: {
          workersMax: boundReversals(changes, 'workersMax', bounds.workersMax, config.stabilizationWindowMs),
          workersMin: boundReversals(changes, 'workersMin', bounds.workersMin, config.stabilizationWindowMs),
        },
        ...(state
          ? {
              scalerWrites: state.writes,
              ticks: state.ticks,
              intervalMs: config.intervalMs,
              tickPeriodMs: round((stateAt - r.t0) / Math.max(1, state.ticks - ticksBefore)),
              lastDecisions: state.decisions.slice(-6).map((d) => `${d.kind}: ${d.reason}`),
            }
          : {}),
        // For the oracle: arrivals and execution times of this run.
        _jobs: r.jobs.map((j) => ({ at: j.at - r.t0, ms: j.execMs, delayMs: j.delayMs })),
        _cold: coldStartMs(r.pods),
      };
      await eventually(() => s.platform.pool.podsOf(ep).every((p) => p.phase === 'exited'), 60_000, 200).catch(
        () => undefined,
      );
      load.push(loadavg()[0]!);
    }
  } finally {
    await s.dispose();
    rmSync(dbDir, { recursive: true, force: true });
  }
  // The oracle serves each run's jobs (arrivals, execution times), each job no later than it started in that run
  // (the same queue delays), and (scaler) every job within its p99; the fixed oracle (`fixed`), each job no later than
  // with the ceiling's workers warm all the time (the best service the ceiling allows: one yardstick for every mode).
  // Its cold start is the shortest of the runs' mean cold starts (a run that starts many pods at once measures longer
  // ones; the oracle does not get them).
  const colds = Object.values(runs)
    .map((r) => r._cold as number)
    .filter((x) => Number.isFinite(x));
  const cold = colds.length ? Math.min(...colds) : undefined;
  const fmt = (o: ReturnType<typeof oracle>) => ({
    workerSeconds: round(o.workerMs / 1000, 1),
    busySeconds: round(o.busyMs / 1000, 1),
    workers: o.workers,
  });
  const oracles: Record<string, unknown> = { coldStartMs: round(cold ?? NaN) };
  const ratios: Record<string, unknown> = {};
  for (const [mode, r] of Object.entries(runs)) {
    if (cold === undefined) break;
    const jobs = r._jobs as { at: number; ms: number; delayMs: number }[];
    const perJob = oracle(jobs, 0, cold);
    const fixed = fixedOracle(jobs, CEILING, cold);
    oracles[mode] = { sameDelays: fmt(perJob), fixed: fmt(fixed) };
    ratios[mode] = {
      sameDelays: round((r.workerSeconds as number) / (perJob.workerMs / 1000), 2),
      fixed: round((r.workerSeconds as number) / (fixed.workerMs / 1000), 2),
    };
    if (mode === 'scaler') {
      const p99 = oracle(
        jobs.map(({ at, ms }) => ({ at, ms })),
        r.delayP99Ms as number,
        cold,
      );
      oracles[mode] = { ...(oracles[mode] as object), withinP99: { delayMs: r.delayP99Ms, ...fmt(p99) } };
      ratios[mode] = {
        ...(ratios[mode] as object),
        withinP99: round((r.workerSeconds as number) / (p99.workerMs / 1000), 2),
      };
    }
  }
  out.oracle = oracles;
  out.costRatio = ratios;
  for (const r of Object.values(runs)) {
    delete r._jobs;
    delete r._cold;
  }
  out.runs = runs;
  if (values.raw) writeFileSync(values.raw, JSON.stringify(raw));
  out.loadAverage = load.map((x) => round(x, 1));
  console.log(values.json ? JSON.stringify(out, null, 2) : JSON.stringify(out, null, 1));
}

runBench(main);
