/** Argument parsers of the scale commands (durations, worker counts, USD) and the scaler's config from `scale start`'s flags. */
import { InvalidArgumentError } from 'commander';
import { ScalingOptions, type ScalingOptionsInput } from '../../contracts';
import { UsageError } from './errors';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `500ms`, `5s`, `10m`, `1h30m`, `2d` (a bare number is seconds) to milliseconds. */
export function parseDuration(raw: string): number {
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (text === '' || parts.map((p) => p[0]).join('') !== text) throw new InvalidArgumentError('must be a duration like 500ms, 5s, 10m, 1h30m or 2d');
  const total = Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]!]!, 0));
  if (total <= 0) throw new InvalidArgumentError('must be a positive duration');
  return total;
}

/** A number of workers, 0 to 100. */
export function parseWorkers(raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < 0 || n > 100) throw new InvalidArgumentError('must be a whole number of workers from 0 to 100');
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
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be a number of USD, 0 or more');
  return n;
}

/** ISO 8601 (`2026-12-24T18:00:00Z`, or with an offset) to epoch ms; a time already past is refused. */
export function parseIsoTime(raw: string): number {
  const t = /^\d{4}-\d{2}-\d{2}T/.test(raw) ? Date.parse(raw) : NaN;
  if (Number.isNaN(t)) throw new InvalidArgumentError('must be an ISO 8601 time, e.g. 2026-12-24T18:00:00+01:00');
  if (t <= Date.now()) throw new InvalidArgumentError('is in the past');
  return t;
}

/** `scale start`'s flags. */
export interface ScaleStartFlags {
  floor?: number; ceiling?: number; interval?: number; targetPerWorker?: number; targetQueueDelay?: number; maxSpendPerHour?: number;
  pricePerHour?: number; headroom?: number; window?: number; cooldown?: number; minWriteGap?: number; drift?: 'reassert' | 'adopt';
}

/** The flag behind each config field, for messages. */
const FLAGS: Record<string, string> = {
  floor: '--floor', ceiling: '--ceiling', intervalMs: '--interval', targetPerWorker: '--target-per-worker', targetQueueDelayMs: '--target-queue-delay',
  maxSpendPerHour: '--max-spend-per-hour', pricePerHour: '--price-per-hour', headroom: '--headroom', stabilizationWindowMs: '--window',
  cooldownMs: '--cooldown', minWriteGapMs: '--min-write-gap', drift: '--drift',
};

/** The scaler's config from the flags, checked (with the library's defaults) before anything connects. */
export function scalingConfigOf(o: ScaleStartFlags): ScalingOptionsInput {
  const fields: Record<string, unknown> = {
    floor: o.floor, ceiling: o.ceiling, intervalMs: o.interval, targetPerWorker: o.targetPerWorker, targetQueueDelayMs: o.targetQueueDelay,
    maxSpendPerHour: o.maxSpendPerHour, pricePerHour: o.pricePerHour, headroom: o.headroom, stabilizationWindowMs: o.window,
    cooldownMs: o.cooldown, minWriteGapMs: o.minWriteGap, drift: o.drift,
  };
  const config = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as ScalingOptionsInput;
  const checked = ScalingOptions.safeParse(config);
  if (!checked.success) {
    throw new UsageError(`invalid scaler options: ${checked.error.issues.map((i) => (i.path.length ? `${FLAGS[String(i.path[0])] ?? String(i.path[0])}: ${i.message}` : i.message.replace('floor', '--floor').replace('ceiling', '--ceiling'))).join('; ')}`);
  }
  return config;
}
