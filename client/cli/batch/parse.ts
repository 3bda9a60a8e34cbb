/** What the batch commands share: the id argument, argument parsers (USD, priority, deadline), the watch's flags and the library's defaults shown in help (--interval: ../options). */
import { InvalidArgumentError } from 'commander';
import { BATCH_DEFAULTS, RETRY_DEFAULTS } from '../../../contracts/defaults';

/** The library's defaults, shown in help (zod-free: the group's definitions load no schema). */
export const DEFAULTS = { ...BATCH_DEFAULTS, maxAttempts: RETRY_DEFAULTS.maxAttempts };

export const parseCost = (raw: string): number => {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError('must be a positive number of USD');
  return n;
};
export const parsePrice = (raw: string): number => {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError('must be a number of USD per worker-hour, 0 or more');
  return n;
};
export const parsePriority = (raw: string): number => {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < 0 || n > 9)
    throw new InvalidArgumentError('must be an integer from 0 to 9');
  return n;
};
/** ISO 8601 (`2025-06-01T18:00:00Z`) to epoch ms; a time already past is refused. */
export const parseDeadline = (raw: string): number => {
  const ms = /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : NaN;
  if (Number.isNaN(ms)) throw new InvalidArgumentError('must be an ISO 8601 time, e.g. 2025-06-01T18:00:00Z');
  if (ms <= Date.now()) throw new InvalidArgumentError('is in the past');
  return ms;
};
export const ID_ARGUMENT = ['<id>', 'the batch: batch/<id> or <id>'] as const;

/** The flags of a command that watches a batch. */
export interface WatchFlags {
  json?: boolean;
  interval: number;
  dataDir: string;
}
/** How a command that watches a batch shows it. */
export const watchOptions = (o: WatchFlags) => ({
  json: o.json ?? false,
  intervalMs: o.interval * 1000,
  tty: Boolean(process.stderr.isTTY),
});
