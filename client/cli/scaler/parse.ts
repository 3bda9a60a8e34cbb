/** Argument parsers of the scaler commands (the endpoint argument, durations, worker counts, USD) and the scaler's config from `scaler start`'s flags. */
import { InvalidArgumentError } from 'commander';
import { ScalerConfigure, ScalerOptions, type ScalerOptionsInput } from '../../../contracts';
import { UsageError } from '../errors';

/** The endpoint argument every scaler command takes first. */
export const ENDPOINT_ARGUMENT = ['<endpoint>', 'endpoint id or name'] as const;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `500ms`, `5s`, `10m`, `1h30m`, `2d` (a bare number is seconds) to milliseconds. */
export function parseDuration(raw: string): number {
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (text === '' || parts.map((p) => p[0]).join('') !== text)
    throw new InvalidArgumentError('must be a duration like 500ms, 5s, 10m, 1h30m or 2d');
  const total = Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]!]!, 0));
  if (total <= 0) throw new InvalidArgumentError('must be a positive duration');
  return total;
}

/** A duration that may be 0 (`0`, `0s`). */
export const parseDuration0 = (raw: string): number =>
  /^0+(\.0+)?(ms|s|m|h|d)?$/.test(raw.trim()) ? 0 : parseDuration(raw);

/** A number of workers, 0 to 100. */
export function parseWorkers(raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < 0 || n > 100)
    throw new InvalidArgumentError('must be a whole number of workers from 0 to 100');
  return n;
}

/** A positive number (jobs per worker, USD per hour). */
export function parsePositive(raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number');
  return n;
}

/** USD per worker-hour, 0 or more. */
export function parseUsd(raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError('must be a number of USD, 0 or more');
  return n;
}

/** ISO 8601 (`2026-12-24T18:00:00Z`, or with an offset) to epoch ms; a time already past is refused. */
export function parseIsoTime(raw: string): number {
  const t = /^\d{4}-\d{2}-\d{2}T/.test(raw) ? Date.parse(raw) : NaN;
  if (Number.isNaN(t)) throw new InvalidArgumentError('must be an ISO 8601 time, e.g. 2026-12-24T18:00:00+01:00');
  if (t <= Date.now()) throw new InvalidArgumentError('is in the past');
  return t;
}

/** `none` (for `scaler configure`: clears an optional field), else `parse(raw)`. (Commander turns a parser's null into '', hence the word.) */
export const orNone =
  <T>(parse: (raw: string) => T) =>
  (raw: string): T | 'none' =>
    raw.trim() === 'none' ? 'none' : parse(raw);

/** `scaler start`'s flags (`scaler configure` takes the same; there `none` clears an optional one). */
export interface ScalerStartFlags {
  floor?: number;
  ceiling?: number;
  interval?: number;
  targetPerWorker?: number;
  targetQueueDelay?: number | 'none';
  maxSpendPerHour?: number | 'none';
  pricePerHour?: number | 'none';
  headroom?: number;
  window?: number;
  cooldown?: number;
  minWriteGap?: number;
  drift?: 'reassert' | 'adopt';
  warmHold?: number | 'none';
}

/** The flag behind each config field, for messages. */
const FLAGS: Record<string, string> = {
  floor: '--floor',
  ceiling: '--ceiling',
  intervalMs: '--interval',
  targetPerWorker: '--target-per-worker',
  targetQueueDelayMs: '--target-queue-delay',
  maxSpendPerHour: '--max-spend-per-hour',
  pricePerHour: '--price-per-hour',
  headroom: '--headroom',
  stabilizationWindowMs: '--window',
  cooldownMs: '--cooldown',
  minWriteGapMs: '--min-write-gap',
  drift: '--drift',
  warmHoldMs: '--warm-hold',
};

/** The config fields of the flags given (undefined: not given). */
const fieldsOf = (o: ScalerStartFlags): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries({
      floor: o.floor,
      ceiling: o.ceiling,
      intervalMs: o.interval,
      targetPerWorker: o.targetPerWorker,
      targetQueueDelayMs: o.targetQueueDelay,
      maxSpendPerHour: o.maxSpendPerHour,
      pricePerHour: o.pricePerHour,
      headroom: o.headroom,
      stabilizationWindowMs: o.window,
      cooldownMs: o.cooldown,
      minWriteGapMs: o.minWriteGap,
      drift: o.drift,
      warmHoldMs: o.warmHold,
    })
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, v === 'none' ? null : v]),
  );

const issuesText = (issues: { path: PropertyKey[]; message: string }[]): string =>
  issues
    .map((i) =>
      i.path.length
        ? `${FLAGS[String(i.path[0])] ?? String(i.path[0])}: ${i.message}`
        : i.message.replace('floor', '--floor').replace('ceiling', '--ceiling'),
    )
    .join('; ');

/** The scaler's config from the flags, checked (with the library's defaults) before anything connects. */
export function scalerConfigOf(o: ScalerStartFlags): ScalerOptionsInput {
  // (`start`'s parsers take no `none`: only `configure` clears a setting.)
  const config = fieldsOf(o) as ScalerOptionsInput;
  const checked = ScalerOptions.safeParse(config);
  if (!checked.success) throw new UsageError(`invalid scaler options: ${issuesText(checked.error.issues)}`);
  return config;
}

/** `scaler configure`'s change from the flags (`none` clears an optional field); at least one flag. */
export function scalerChangeOf(o: ScalerStartFlags): ScalerConfigure {
  const fields = fieldsOf(o);
  if (Object.keys(fields).length === 0)
    throw new UsageError(
      'give at least one setting to change, e.g. --ceiling 8 (sluice scaler configure --help lists them)',
    );
  const checked = ScalerConfigure.safeParse(fields);
  if (!checked.success) throw new UsageError(`invalid scaler options: ${issuesText(checked.error.issues)}`);
  return checked.data;
}
