/** What each `sluice scaler` command does to an endpoint's scaler (commands.ts registers them): start, configure, status, watch, override, pause, resume, stop. */
import { WorkflowExecutionAlreadyStartedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { OverrideInput, ScalerOptions, scalerWorkflowId, type ScalerConfig } from '../../../contracts';
import { type ScalerClient } from '../../scaler';
import { connectCli } from '../context';
import { UsageError } from '../errors';
import { EXIT_CODES } from '../exit-codes';
import { assertLookup, endpointArg } from '../endpoint-arg';
import { scalerExitCode, scalerTable } from './output';
import { scalerChangeOf, scalerConfigOf, type ScalerStartFlags } from './parse';
import { watchScaler } from './watch';
import { resolveSettings } from '../settings';

export interface ScalerFlags {
  json?: boolean;
  dataDir: string;
}

/** Connects, finds the endpoint and its scaler (`no scaler for endpoint X`: exit 2), runs `fn`, closes on every path. */
async function withScaler(
  endpoint: string,
  o: ScalerFlags,
  fn: (scaler: ScalerClient, endpointId: string) => Promise<number>,
): Promise<number> {
  const cli = await connectCli(o.dataDir, ['scaler', 'service']);
  try {
    const endpointId = await endpointArg(cli, endpoint, (id) => cli.scaler.exists(id));
    if (!(await cli.scaler.exists(endpointId)))
      throw new UsageError(`no scaler for endpoint ${endpoint}; start one: sluice scaler start ${endpoint}`);
    return await fn(cli.scaler, endpointId);
  } finally {
    await cli.close();
  }
}

/** Runs `fn` on a running scaler; one that has ended: a message (or JSON) and exit 1. */
const whileRunning = (
  endpoint: string,
  o: ScalerFlags,
  verb: string,
  fn: (scaler: ScalerClient, endpointId: string) => Promise<number>,
) =>
  withScaler(endpoint, o, async (scaler, endpointId) => {
    const v = await scaler.view(endpointId);
    if (v.workflowStatus !== 'RUNNING') {
      if (o.json)
        console.log(JSON.stringify({ workflowId: v.workflowId, workflowStatus: v.workflowStatus, done: false }));
      else console.error(`sluice: ${v.workflowId} already ended ${v.workflowStatus}; it can no longer be ${verb}`);
      return EXIT_CODES.failed;
    }
    return fn(scaler, endpointId);
  });

export async function start(endpoint: string, o: ScalerFlags & ScalerStartFlags): Promise<number> {
  const config = scalerConfigOf(o);
  const settings = resolveSettings(o.dataDir);
  assertLookup(settings, endpoint);
  const cli = await connectCli(o.dataDir, ['scaler', 'service'], settings);
  try {
    const endpointId = await endpointArg(cli, endpoint);
    const workflowId = await cli.scaler.start(endpointId, config).catch((err: unknown) => {
      if (err instanceof WorkflowExecutionAlreadyStartedError)
        throw new UsageError(
          `a scaler already runs for endpoint ${endpoint} (${scalerWorkflowId(endpointId)}); see sluice scaler status ${endpoint}, or stop it first`,
        );
      throw err;
    });
    const c = ScalerOptions.parse(config);
    if (o.json) console.log(JSON.stringify({ workflowId, endpointId, config: c }));
    else
      console.log(
        `started ${workflowId} on endpoint ${endpointId}: floor ${c.floor}, ceiling ${c.ceiling}, a sample every ${c.intervalMs / 1000}s\n(it keeps running until \`sluice scaler stop ${endpoint}\`; \`sluice scaler status ${endpoint}\` shows its decisions)`,
      );
    return EXIT_CODES.ok;
  } finally {
    await cli.close();
  }
}

/** `before -> after` of each setting that changed (nested ones as JSON). */
function changedText(before: ScalerConfig, after: ScalerConfig): string {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])] as (keyof ScalerConfig)[];
  const text = (v: unknown): string =>
    v === undefined ? 'none' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  const changed = keys
    .filter((k) => text(before[k]) !== text(after[k]))
    .map((k) => `${k} ${text(before[k])} -> ${text(after[k])}`);
  return changed.length ? changed.join(', ') : 'nothing changed';
}

export const configure = (endpoint: string, o: ScalerFlags & ScalerStartFlags) => {
  const change = scalerChangeOf(o);
  return whileRunning(endpoint, o, 'configured', async (scaler, endpointId) => {
    const before = (await scaler.status(endpointId)).config;
    const s = await scaler.configure(endpointId, change).catch((err: unknown) => {
      // The workflow's validator refused it (say, a floor above the ceiling in force): nothing changed.
      if (err instanceof WorkflowUpdateFailedError)
        throw new UsageError(`invalid scaler options: ${err.cause?.message ?? err.message}; nothing changed`);
      throw err;
    });
    if (o.json) console.log(JSON.stringify(s));
    else
      console.log(
        `${scalerWorkflowId(endpointId)}: ${changedText(before, s.config)}; bounds ${s.bounds ? `${s.bounds.workersMin}..${s.bounds.workersMax}` : '-'} (target ${s.target})`,
      );
    return EXIT_CODES.ok;
  });
};

export const status = (endpoint: string, o: ScalerFlags & { decisions: number }) =>
  withScaler(endpoint, o, async (scaler, endpointId) => {
    const [v, schedules] = await Promise.all([scaler.view(endpointId), scaler.schedules.list({ endpointId })]);
    console.log(o.json ? JSON.stringify({ ...v, schedules }) : scalerTable(v, { decisions: o.decisions, schedules }));
    return scalerExitCode(v);
  });

export const watch = (endpoint: string, o: ScalerFlags & { interval: number; decisions: number }) =>
  withScaler(endpoint, o, (scaler, endpointId) =>
    watchScaler(scaler, endpointId, {
      json: o.json ?? false,
      intervalMs: o.interval,
      tty: Boolean(process.stdout.isTTY),
      decisions: o.decisions,
    }),
  );

export interface OverrideFlags extends ScalerFlags {
  min?: number;
  max?: number;
  for?: number;
  clear?: boolean;
}

export async function override(endpoint: string, o: OverrideFlags): Promise<number> {
  let pin: OverrideInput | undefined;
  if (o.clear) {
    if (o.min !== undefined || o.max !== undefined || o.for !== undefined)
      throw new UsageError('--clear takes no --min, --max or --for');
  } else {
    if (o.min === undefined || o.max === undefined || o.for === undefined)
      throw new UsageError('override needs --min N --max N --for DURATION (or --clear)');
    const checked = OverrideInput.safeParse({ workersMin: o.min, workersMax: o.max, forMs: o.for });
    if (!checked.success)
      throw new UsageError(
        `invalid override: ${checked.error.issues.map((i) => i.message.replace('workersMin', '--min').replace('workersMax', '--max').replace('forMs', '--for')).join('; ')}`,
      );
    pin = checked.data;
  }
  return whileRunning(endpoint, o, 'overridden', async (scaler, endpointId) => {
    const s = pin ? await scaler.override(endpointId, pin) : await scaler.clearOverride(endpointId);
    if (o.json) console.log(JSON.stringify(s));
    else if (s.override)
      console.log(
        `${scalerWorkflowId(endpointId)}: bounds pinned to ${s.override.workersMin}..${s.override.workersMax} until ${new Date(s.override.until).toISOString()}; then the policy takes over (sluice scaler override ${endpoint} --clear ends it now)`,
      );
    else
      console.log(
        `${scalerWorkflowId(endpointId)}: no override; the policy decides (bounds ${s.bounds ? `${s.bounds.workersMin}..${s.bounds.workersMax}` : '-'})`,
      );
    return EXIT_CODES.ok;
  });
}

/** `pause` (pausing) or `resume`. */
export const control = (pausing: boolean) => (endpoint: string, o: ScalerFlags) =>
  whileRunning(endpoint, o, pausing ? 'paused' : 'resumed', async (scaler, endpointId) => {
    const s = pausing ? await scaler.pause(endpointId) : await scaler.resume(endpointId);
    if (o.json) console.log(JSON.stringify(s));
    else
      console.log(
        pausing
          ? `${scalerWorkflowId(endpointId)}: paused; the bounds stay ${s.bounds ? `${s.bounds.workersMin}..${s.bounds.workersMax}` : 'as they are'} (samples go on); sluice scaler resume ${endpoint} goes on`
          : `${scalerWorkflowId(endpointId)}: resumed (${s.phase}); sluice scaler status ${endpoint} shows its decisions`,
      );
    return EXIT_CODES.ok;
  });

export const stop = (endpoint: string, o: ScalerFlags) =>
  whileRunning(endpoint, o, 'stopped', async (scaler, endpointId) => {
    const s = await scaler.stop(endpointId);
    const v = await scaler.view(endpointId);
    if (o.json) console.log(JSON.stringify(v));
    else
      console.log(
        v.workflowStatus === 'CANCELLED'
          ? `${v.workflowId}: stopped; bounds restored to ${s?.found ? `${s.found.workersMin}..${s.found.workersMax}` : 'those found at start'}`
          : `${v.workflowId}: ended ${v.workflowStatus} before the stop took effect`,
      );
    return v.workflowStatus === 'CANCELLED' ? EXIT_CODES.ok : EXIT_CODES.failed;
  });
