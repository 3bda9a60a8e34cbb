/**
 * One endpoint's scaler (`scaler/<endpointId>`): samples `/health` every interval, decides with the
 * pure policy and writes workersMin/workersMax only when they change; override, pause, resume,
 * configure, schedule window and batch backlogs by message; continue-as-new without losing one;
 * on cancellation it restores the bounds it found and ends Cancelled.
 */
import {
  CancellationScope, CancelledFailure, allHandlersFinished, condition, continueAsNew, defineQuery, defineSignal, defineUpdate,
  patched, proxyActivities, setHandler, workflowInfo,
} from '@temporalio/workflow';
import { FailureType, NON_RETRYABLE, SCALER_QUERIES, SCALER_SIGNALS, SCALER_UPDATES, SCALING_FAILURES, SCALING_PATCHES } from '../contracts/names';
import type {
  Backlog, BacklogReport, Decision, OverrideInput, ScaleWindow, ScalerState, ScalerWorkflowInput, ScalingConfigure,
} from '../contracts';
import type { ScalingActivities } from '../activities/scaling-activities';
import { liveBacklogs } from './scaling-demand';
import { decide, remember, type PolicyInput, type PolicyMemory } from './scaling-policy';
import { SAMPLES_KEPT, backlogScanMs, configured, errorOf, logDecision, mergePulled, note, typeOf, type ScalerCarry } from './scaling-support';

export { configured, type ScalerCarry } from './scaling-support';

export const scalerStateQuery = defineQuery<ScalerState>(SCALER_QUERIES.state);
/** Pins the bounds for `forMs`; resolves once they are written. */
export const overrideUpdate = defineUpdate<ScalerState, [OverrideInput]>(SCALER_UPDATES.override);
export const clearOverrideUpdate = defineUpdate<ScalerState>(SCALER_UPDATES.clearOverride);
/** Stops every change of the bounds; resolves once no write is under way. */
export const pauseScalerUpdate = defineUpdate<ScalerState>(SCALER_UPDATES.pause);
export const resumeScalerUpdate = defineUpdate<ScalerState>(SCALER_UPDATES.resume);
export const configureScalerUpdate = defineUpdate<ScalerState, [ScalingConfigure]>(SCALER_UPDATES.configure);
/** A schedule's floor/ceiling window (null clears it). */
export const setWindowUpdate = defineUpdate<ScalerState, [ScaleWindow | null]>(SCALER_UPDATES.setWindow);
export const backlogUpdate = defineUpdate<ScalerState, [BacklogReport]>(SCALER_UPDATES.backlog);
export const backlogSignal = defineSignal<[BacklogReport]>(SCALER_SIGNALS.backlog);

const NOT_RETRIED = [...NON_RETRYABLE, SCALING_FAILURES.notConfigured];
// A sample is one try: the workflow counts failures toward the fallback itself.
const probe = proxyActivities<ScalingActivities>({ startToCloseTimeout: '20 seconds', retry: { maximumAttempts: 1 } });
const control = proxyActivities<ScalingActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 5, nonRetryableErrorTypes: NOT_RETRIED },
});

export async function scalerWorkflow(input: ScalerWorkflowInput, carry?: ScalerCarry): Promise<ScalerState> {
  const { endpointId } = input;
  let config = input.config;
  const startedAt = carry?.startedAt ?? Date.now();
  const runs = (carry?.runs ?? 0) + 1;
  let found = carry?.found;
  let bounds = carry?.bounds;
  let memory: PolicyMemory = carry?.memory ?? { target: 0, history: [] };
  let samples = carry?.samples ?? [];
  const decisions = carry?.decisions ?? [];
  let override = carry?.override;
  let window = carry?.window;
  let backlogs = carry?.backlogs ?? [];
  let paused = carry?.paused ?? false;
  let healthFailures = carry?.healthFailures ?? 0;
  let pricePerHour = carry?.pricePerHour;
  let writes = carry?.writes ?? 0;
  let lastWriteAt = carry?.lastWriteAt;
  let ticks = carry?.ticks ?? 0;
  let stopping = false;
  let stopped = false;
  let wake = false;
  let started = 0;
  let done = 0;
  let handingOver = false;
  let lastScanAt: number | undefined;
  const last = { spendCapBinding: false, fallbackActive: false };

  const state = (): ScalerState => ({
    endpointId, phase: stopped ? 'stopped' : stopping ? 'stopping' : paused ? 'paused' : 'running',
    ...(bounds ? { bounds } : {}), ...(found ? { found } : {}), target: memory.target, ...(samples.length ? { load: samples.at(-1)! } : {}),
    decisions, ...(override ? { override } : {}), ...(window ? { window } : {}), backlogs, fallbackActive: last.fallbackActive, healthFailures,
    spendCapBinding: last.spendCapBinding, ...(pricePerHour !== undefined ? { pricePerHour } : {}), config, writes, ...(lastWriteAt !== undefined ? { lastWriteAt } : {}),
    ticks, runs, startedAt,
  });
  const log = (d: Decision): void => logDecision(decisions, d);
  /**
   * Resolves once a tick that started after the message has ended (its effect is in place), or
   * when the run hands over to the next (which carries the message and applies it at once).
   */
  const applied = async (): Promise<ScalerState> => {
    const after = started;
    wake = true;
    await condition(() => done > after || stopping || handingOver);
    return state();
  };
  const report = (r: BacklogReport): void => {
    const b: Backlog = { ...r, reportedAt: r.reportedAt ?? Date.now() };
    backlogs = [...backlogs.filter((x) => x.source !== b.source), b];
    wake = true;
  };
  setHandler(scalerStateQuery, state);
  setHandler(overrideUpdate, (o) => {
    override = { workersMin: o.workersMin, workersMax: o.workersMax, until: Date.now() + o.forMs };
    return applied();
  }, { validator: (o) => { if (!(o.workersMin <= o.workersMax && o.forMs > 0)) throw new Error('override needs workersMin <= workersMax and forMs > 0'); } });
  setHandler(clearOverrideUpdate, () => {
    override = undefined;
    return applied();
  });
  setHandler(pauseScalerUpdate, async () => {
    paused = true;
    // A tick under way may still write; none after it does.
    await condition(() => done === started || stopping);
    return state();
  });
  setHandler(resumeScalerUpdate, () => {
    paused = false;
    return applied();
  });
  setHandler(configureScalerUpdate, (c) => {
    config = configured(config, c);
    return applied();
  }, { validator: (c) => void configured(config, c) });
  setHandler(setWindowUpdate, (w) => {
    window = w ?? undefined;
    return applied();
  }, { validator: (w) => { if (w && w.floor !== undefined && w.ceiling !== undefined && w.floor > w.ceiling) throw new Error('floor must not exceed ceiling'); } });
  setHandler(backlogUpdate, (r) => {
    report(r);
    return applied();
  });
  setHandler(backlogSignal, report);
  CancellationScope.current().cancelRequested.catch(() => {
    stopping = true;
  });

  const tick = async (): Promise<void> => {
    // Every backlogScanMs (0: never), the backlog of the batches running on the endpoint is pulled too.
    const scanMs = backlogScanMs(config);
    const scan = scanMs > 0 && (lastScanAt === undefined || Date.now() - lastScanAt >= scanMs) && patched(SCALING_PATCHES.pullBacklog);
    const [h, rb, pb] = await Promise.allSettled([
      probe.readHealth(endpointId), control.readBounds(endpointId), scan ? probe.readBacklog({ endpointId, maxAgeMs: Math.floor(scanMs / 2) }) : undefined,
    ]);
    const now = Date.now();
    if (scan) lastScanAt = now;
    if (rb.status === 'rejected' && typeOf(rb.reason) === FailureType.ENDPOINT_NOT_FOUND) throw rb.reason;
    if (rb.status === 'fulfilled') {
      bounds = { workersMin: rb.value.workersMin, workersMax: rb.value.workersMax };
      if (rb.value.pricePerHour !== undefined) pricePerHour = rb.value.pricePerHour;
    }
    const failed = h.status === 'rejected' ? `health: ${errorOf(h.reason)}` : rb.status === 'rejected' ? `bounds: ${errorOf(rb.reason)}` : undefined;
    const counts = h.status === 'fulfilled' ? h.value : { inQueue: 0, inProgress: 0, running: 0, idle: 0, initializing: 0, completed: 0 };
    samples = [...samples, { at: now, ok: failed === undefined, ...counts, ...(failed ? { error: failed } : {}) }].slice(-SAMPLES_KEPT);
    healthFailures = failed ? healthFailures + 1 : 0;
    if (pb.status === 'fulfilled' && pb.value) backlogs = mergePulled(backlogs, pb.value, now, scanMs, samples);
    backlogs = liveBacklogs(backlogs, now, config.backlogTtlMs);
    if (override && now >= override.until) override = undefined;
    const i: PolicyInput = {
      now, config, samples, bounds: bounds!, memory, healthFailures, backlogs, paused,
      ...(pricePerHour !== undefined ? { pricePerHour } : {}), ...(window ? { window } : {}), ...(override ? { override } : {}),
    };
    const d = decide(i);
    let written = false;
    if (d.write) {
      try {
        bounds = await control.writeBounds({ endpointId, ...d.bounds });
        written = true;
        writes++;
        lastWriteAt = Date.now();
      } catch (err) {
        if (typeOf(err) === FailureType.ENDPOINT_NOT_FOUND) throw err;
        d.reason += `; write failed: ${errorOf(err)}`;
      }
    }
    if (d.adopt) {
      config = { ...config, ...d.adopt };
      found = { ...bounds! };
    }
    memory = remember(i, d, written);
    last.spendCapBinding = d.spendCapBinding;
    last.fallbackActive = d.fallbackActive;
    ticks++;
    log({ ...d, tick: ticks });
  };

  let runTicks = 0;
  await CancellationScope.nonCancellable(async () => {
    if (!found) {
      const b = await control.readBounds(endpointId);
      found = { workersMin: b.workersMin, workersMax: b.workersMax };
      bounds = found;
      if (b.pricePerHour !== undefined) pricePerHour = b.pricePerHour;
      memory = { target: found.workersMin, history: [], known: found };
      log(note('start', `found ${found.workersMin}..${found.workersMax}: restored on stop`, found, found.workersMin, false));
    }
    while (!stopping) {
      started++;
      try {
        await tick();
      } finally {
        done++;
      }
      runTicks++;
      if ((runTicks >= config.ticksPerRun || workflowInfo().continueAsNewSuggested) && !stopping) {
        handingOver = true;
        return;
      }
      await condition(() => wake || stopping, config.intervalMs);
      wake = false;
    }
  });

  if (!stopping) {
    // Every message handled before the next run takes over (none is lost).
    await condition(allHandlersFinished);
    const next: ScalerCarry = {
      memory, samples, decisions, found: found!, bounds: bounds!, backlogs, paused, healthFailures, writes, ticks, runs, startedAt,
      ...(override ? { override } : {}), ...(window ? { window } : {}), ...(pricePerHour !== undefined ? { pricePerHour } : {}), ...(lastWriteAt !== undefined ? { lastWriteAt } : {}),
    };
    return continueAsNew<typeof scalerWorkflow>({ endpointId, config }, next);
  }

  // Stopped: the bounds found at start go back (a cancelled scaler leaves the endpoint as it was).
  const f = found!;
  const restore = note('restore', `stopped: restoring ${f.workersMin}..${f.workersMax}`, f, memory.target, true);
  await CancellationScope.nonCancellable(async () => {
    try {
      bounds = await control.writeBounds({ endpointId, ...f });
      writes++;
      lastWriteAt = Date.now();
    } catch (err) {
      restore.reason += `; write failed: ${errorOf(err)}`;
    }
  });
  log(restore);
  stopped = true;
  throw new CancelledFailure(restore.reason);
}
