/**
 * One tick of the scaler: read the endpoint (and now and then its batches' backlog), decide with the
 * pure policy, write the bounds when the decision says so, remember, and log the decision.
 */
import { patched } from '@temporalio/workflow';
import { FailureType, SCALER_PATCHES } from '../../contracts/names';
import type { Decision } from '../../contracts';
import { mergePulled } from './backlogs';
import { control, readEndpoint, type EndpointReads } from './calls';
import { backlogScanMs } from './config';
import { logDecision } from './decision-log';
import { liveBacklogs } from './demand';
import { errorOf, typeOf } from './errors';
import { decide, remember, type PolicyInput } from './policy';
import { SAMPLES_KEPT, type ScalerRun } from './state';

/** One tick on `run`: its reads, the decision, the write, the memory and the log. */
export async function tick(run: ScalerRun): Promise<void> {
  // Every backlogScanMs (0: never), the backlog of the batches running on the endpoint is pulled too.
  const scanMs = backlogScanMs(run.config);
  const scan =
    scanMs > 0 &&
    (run.lastScanAt === undefined || Date.now() - run.lastScanAt >= scanMs) &&
    patched(SCALER_PATCHES.pullBacklog);
  const read = await readEndpoint(run.endpointId, scan ? scanMs : undefined);
  if (scan) run.lastScanAt = read.now;
  takeReads(run, read, scanMs);
  const i = policyInput(run, read.now);
  const d = decide(i);
  const written = d.write ? await writeDecided(run, d) : false;
  if (d.adopt) {
    run.config = { ...run.config, ...d.adopt };
    run.found = { ...run.bounds! };
  }
  run.memory = remember(i, d, written);
  run.last.spendCapBinding = d.spendCapBinding;
  run.last.fallbackActive = d.fallbackActive;
  run.ticks++;
  logDecision(run.decisions, { ...d, tick: run.ticks });
}

/** Takes in what the tick read: bounds, price, the sample (and the failures in a row), the pulled backlog; drops what expired. */
function takeReads(run: ScalerRun, read: EndpointReads, scanMs: number): void {
  const { now } = read;
  if (read.bounds) run.bounds = read.bounds;
  if (read.pricePerHour !== undefined) run.pricePerHour = read.pricePerHour;
  run.samples = [...run.samples, read.sample].slice(-SAMPLES_KEPT);
  run.healthFailures = read.sample.ok ? 0 : run.healthFailures + 1;
  if (read.pulled) run.backlogs = mergePulled(run.backlogs, read.pulled, now, scanMs, run.samples);
  run.backlogs = liveBacklogs(run.backlogs, now, run.config.backlogTtlMs);
  if (run.override && now >= run.override.until) run.override = undefined;
}

/** What the policy decides from at `now`. */
function policyInput(run: ScalerRun, now: number): PolicyInput {
  const { config, samples, memory, healthFailures, backlogs, paused, pricePerHour, window, override } = run;
  return {
    now,
    config,
    samples,
    bounds: run.bounds!,
    memory,
    healthFailures,
    backlogs,
    paused,
    ...(pricePerHour !== undefined ? { pricePerHour } : {}),
    ...(window ? { window } : {}),
    ...(override ? { override } : {}),
  };
}

/** Writes the decided bounds; true once written. A failed write goes into the decision's reason (a missing endpoint throws). */
async function writeDecided(run: ScalerRun, d: Decision): Promise<boolean> {
  try {
    run.bounds = await control.writeBounds({ endpointId: run.endpointId, ...d.bounds });
    run.writes++;
    run.lastWriteAt = Date.now();
    return true;
  } catch (err) {
    if (typeOf(err) === FailureType.ENDPOINT_NOT_FOUND) throw err;
    d.reason += `; write failed: ${errorOf(err)}`;
    return false;
  }
}
