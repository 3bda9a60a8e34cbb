import { isTerminal, type JobRecord, type RemoteOutcome } from '../contracts';
import { type ActivityMetrics } from './metrics';
import { outputKey, type RunScope } from '../contracts/names';
import { type ResultsStore } from './results-store';

/** A job's error as one string: the service passes handler errors through as any JSON. */
export function errorText(error: unknown): string | undefined {
  if (error === undefined || error === null) return undefined;
  return typeof error === 'string' ? error : JSON.stringify(error);
}

/**
 * The exception class a worker reported: the stock SDK sends `error` as a JSON string holding
 * `error_type` (`<class 'ValueError'>`); given as an object too. Undefined for plain messages.
 */
export function errorType(error: unknown): string | undefined {
  let value = error;
  if (typeof value === 'string' && value.startsWith('{')) {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  const raw = value && typeof value === 'object' ? (value as { error_type?: unknown }).error_type : undefined;
  if (typeof raw !== 'string') return undefined;
  return /^<class '([^']+)'>$/.exec(raw)?.[1] ?? raw;
}

/**
 * The small, history-safe summary of a finished remote job. Outputs over `inlineLimit` JSON
 * bytes are written to the results store and referenced. Counted in `metrics` when given.
 */
export function toOutcome(
  record: JobRecord,
  ctx: RunScope & { retries: number; inlineLimit: number; store: ResultsStore; via: RemoteOutcome['via']; metrics?: ActivityMetrics },
): RemoteOutcome {
  if (!isTerminal(record.status)) throw new Error(`job ${record.id} is not finished (${record.status})`);
  const outcome: RemoteOutcome = { remoteJobId: record.id, status: record.status, observedAt: Date.now(), via: ctx.via };
  if (record.output !== undefined) {
    const bytes = Buffer.byteLength(JSON.stringify(record.output));
    if (bytes > ctx.inlineLimit) outcome.outputRef = ctx.store.put(outputKey(ctx, record.id, ctx.retries), record.output);
    else outcome.output = record.output;
  }
  const error = errorText(record.error);
  if (error !== undefined) outcome.error = error.length > 8192 ? `${error.slice(0, 8192)}…` : error;
  const type = errorType(record.error);
  if (type !== undefined) outcome.errorType = type;
  if (record.delayTime !== undefined) outcome.delayTime = record.delayTime;
  if (record.executionTime !== undefined) outcome.executionTime = record.executionTime;
  ctx.metrics?.remoteJobFinished(outcome.status, ctx.via);
  return outcome;
}
