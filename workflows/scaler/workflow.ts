/**
 * One endpoint's scaler (`scaler/<endpointId>`): samples `/health` every interval, decides with the
 * pure policy and writes workersMin/workersMax only when they change; override, pause, resume,
 * configure, schedule window and batch backlogs by message; continue-as-new without losing one;
 * on cancellation it restores the bounds it found and ends Cancelled.
 */
import {
  CancellationScope,
  CancelledFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { FailureType, SCALING_PATCHES } from '../../contracts/names';
import type { Backlog, BacklogReport, Decision, ScalerState, ScalerWorkflowInput } from '../../contracts';
import { control, readEndpoint } from './calls';
import { liveBacklogs } from './demand';
import {
  backlogSignal,
  backlogUpdate,
  clearOverrideUpdate,
  configureScalerUpdate,
  overrideUpdate,
  pauseScalerUpdate,
  resumeScalerUpdate,
  scalerStateQuery,
  setWindowUpdate,
} from './messages';
import { decide, remember, type PolicyInput, type PolicyMemory } from './policy';
import {
  SAMPLES_KEPT,
  backlogScanMs,
  configured,
  errorOf,
  logDecision,
  mergePulled,
  note,
  typeOf,
  type ScalerCarry,
} from './support';

export { configured, type ScalerCarry } from './support';
export * from './messages';

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
    endpointId,
    phase: stopped ? 'stopped' : stopping ? 'stopping' : paused ? 'paused' : 'running',
    ...(bounds ? { bounds } : {}),
    ...(found ? { found } : {}),
    target: memory.target,
    ...(samples.length ? { load: samples.at(-1)! } : {}),
    decisions,
    ...(override ? { override } : {}),
    ...(window ? { window } : {}),
    backlogs,
    fallbackActive: last.fallbackActive,
    healthFailures,
    spendCapBinding: last.spendCapBinding,
    ...(pricePerHour !== undefined ? { pricePerHour } : {}),
    config,
    writes,
    ...(lastWriteAt !== undefined ? { lastWriteAt } : {}),
    ticks,
    runs,
    startedAt,
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
  setHandler(
    overrideUpdate,
    (o) => {
      override = { workersMin: o.workersMin, workersMax: o.workersMax, until: Date.now() + o.forMs };
      return applied();
    },
    {
      validator: (o) => {
        if (!(o.workersMin <= o.workersMax && o.forMs > 0))
          throw new Error('override needs workersMin <= workersMax and forMs > 0');
      },
    },
  );
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
  setHandler(
    configureScalerUpdate,
    (c) => {
      config = configured(config, c);
      return applied();
    },
    { validator: (c) => void configured(config, c) },
  );
  setHandler(
    setWindowUpdate,
    (w) => {
      window = w ?? undefined;
      return applied();
    },
    {
      validator: (w) => {
        if (w && w.floor !== undefined && w.ceiling !== undefined && w.floor > w.ceiling)
          throw new Error('floor must not exceed ceiling');
      },
    },
  );
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
    const scan =
      scanMs > 0 &&
      (lastScanAt === undefined || Date.now() - lastScanAt >= scanMs) &&
      patched(SCALING_PATCHES.pullBacklog);
    const read = await readEndpoint(endpointId, scan ? scanMs : undefined);
    const { now } = read;
    if (scan) lastScanAt = now;
    if (read.bounds) bounds = read.bounds;
    if (read.pricePerHour !== undefined) pricePerHour = read.pricePerHour;
    samples = [...samples, read.sample].slice(-SAMPLES_KEPT);
    healthFailures = read.sample.ok ? 0 : healthFailures + 1;
    if (read.pulled) backlogs = mergePulled(backlogs, read.pulled, now, scanMs, samples);
    backlogs = liveBacklogs(backlogs, now, config.backlogTtlMs);
    if (override && now >= override.until) override = undefined;
    const i: PolicyInput = {
      now,
      config,
      samples,
      bounds: bounds!,
      memory,
      healthFailures,
      backlogs,
      paused,
      ...(pricePerHour !== undefined ? { pricePerHour } : {}),
      ...(window ? { window } : {}),
      ...(override ? { override } : {}),
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
      log(
        note(
          'start',
          `found ${found.workersMin}..${found.workersMax}: restored on stop`,
          found,
          found.workersMin,
          false,
        ),
      );
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
      memory,
      samples,
      decisions,
      found: found!,
      bounds: bounds!,
      backlogs,
      paused,
      healthFailures,
      writes,
      ticks,
      runs,
      startedAt,
      ...(override ? { override } : {}),
      ...(window ? { window } : {}),
      ...(pricePerHour !== undefined ? { pricePerHour } : {}),
      ...(lastWriteAt !== undefined ? { lastWriteAt } : {}),
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
