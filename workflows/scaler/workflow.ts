/**
 * One endpoint's scaler (`scaler/<endpointId>`): samples `/health` every interval, decides with the
 * pure policy and writes workersMin/workersMax only when they change; override, pause, resume,
 * configure, schedule window and batch backlogs by message; continue-as-new without losing one;
 * on cancellation it restores the bounds it found and ends Cancelled. Its state is in state.ts, its
 * message handlers in handlers.ts, one tick in tick.ts.
 */
import {
  CancellationScope,
  CancelledFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  workflowInfo,
} from '@temporalio/workflow';
import type { ScalerState, ScalerWorkflowInput } from '../../contracts';
import { control } from './calls';
import { logDecision, note } from './decision-log';
import { errorOf } from './errors';
import { setScalerHandlers } from './handlers';
import { carryOf, openRun, type ScalerCarry, type ScalerRun } from './state';
import { tick } from './tick';

export type { ScalerCarry } from './state';
export * from './messages';

export async function scalerWorkflow(input: ScalerWorkflowInput, carry?: ScalerCarry): Promise<ScalerState> {
  const run = openRun(input, carry, Date.now());
  setScalerHandlers(run);
  CancellationScope.current().cancelRequested.catch(() => {
    run.stopping = true;
  });
  await CancellationScope.nonCancellable(async () => {
    if (!run.found) await findBounds(run);
    await tickUntilStopOrHandOver(run);
  });
  if (!run.stopping) {
    // Every message handled before the next run takes over (none is lost).
    await condition(allHandlersFinished);
    return continueAsNew<typeof scalerWorkflow>({ endpointId: run.endpointId, config: run.config }, carryOf(run));
  }
  return restoreFound(run);
}

/** A new scaler reads the bounds it finds (restored when it stops) and starts from them. */
async function findBounds(run: ScalerRun): Promise<void> {
  const b = await control.readBounds(run.endpointId);
  const found = { workersMin: b.workersMin, workersMax: b.workersMax };
  run.found = found;
  run.bounds = found;
  if (b.pricePerHour !== undefined) run.pricePerHour = b.pricePerHour;
  run.memory = { target: found.workersMin, history: [], known: found };
  const why = `found ${found.workersMin}..${found.workersMax}: restored on stop`;
  logDecision(run.decisions, note('start', why, found, found.workersMin, false));
}

/**
 * Ticks every interval (at once when a message wakes it) until cancellation, or until the run has
 * ticked `ticksPerRun` times (or Temporal suggests it) and hands over to the next.
 */
async function tickUntilStopOrHandOver(run: ScalerRun): Promise<void> {
  let runTicks = 0;
  while (!run.stopping) {
    run.started++;
    try {
      await tick(run);
    } finally {
      run.done++;
    }
    runTicks++;
    if ((runTicks >= run.config.ticksPerRun || workflowInfo().continueAsNewSuggested) && !run.stopping) {
      run.handingOver = true;
      return;
    }
    await condition(() => run.wake || run.stopping, run.config.intervalMs);
    run.wake = false;
  }
}

/** Stopped: the bounds found at start go back (a cancelled scaler leaves the endpoint as it was); ends Cancelled. */
async function restoreFound(run: ScalerRun): Promise<never> {
  const f = run.found!;
  const restore = note('restore', `stopped: restoring ${f.workersMin}..${f.workersMax}`, f, run.memory.target, true);
  await CancellationScope.nonCancellable(async () => {
    try {
      run.bounds = await control.writeBounds({ endpointId: run.endpointId, ...f });
      run.writes++;
      run.lastWriteAt = Date.now();
    } catch (err) {
      restore.reason += `; write failed: ${errorOf(err)}`;
    }
  });
  logDecision(run.decisions, restore);
  run.stopped = true;
  throw new CancelledFailure(restore.reason);
}
