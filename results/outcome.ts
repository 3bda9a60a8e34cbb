/**
 * The outcome record of a finished remote job, as the workflow sees it: small and history-safe,
 * with a big output written to the results store and referenced. Built by the job activities (a
 * poll) and by the daemon's webhook receiver (a webhook, a held wait's poll), so it lives in the
 * results layer below both.
 */
import { isTerminal, type JobRecord, type RemoteOutcome } from '../contracts';
import { type ActivityMetrics } from '../common/metrics';
import { outputKey, type RunScope } from '../contracts/names';
import { type ObjectStore } from './store/object-store';

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
export async function toOutcome(
  record: JobRecord,
  ctx: RunScope & {
    retries: number;
    inlineLimit: number;
    store: ObjectStore;
    via: RemoteOutcome['via'];
    metrics?: ActivityMetrics;
  },
): Promise<RemoteOutcome> {
  if (!isTerminal(record.status)) throw new Error(`job ${record.id} is not finished (${record.status})`);
  const outcome: RemoteOutcome = {
    remoteJobId: record.id,
    status: record.status,
    observedAt: Date.now(),
    via: ctx.via,
  };
  if (record.output !== undefined) {
    const bytes = Buffer.byteLength(JSON.stringify(record.output));
    if (bytes > ctx.inlineLimit) {
      // Written once: a later call for the same job (a replayed webhook, a poll after it) keeps what is stored.
      const key = outputKey(ctx, record.id, ctx.retries);
      const created = await ctx.store.create(key, record.output);
      outcome.outputRef = created ? { store: ctx.store.kind, key, bytes } : await ctx.store.ref(key);
    } else outcome.output = record.output;
  }
  Object.assign(outcome, runEndOf(record, 8192));
  ctx.metrics?.remoteJobFinished(outcome.status, ctx.via);
  return outcome;
}

/** How a finished job ended, beside its status: error text (cut at `maxError` chars), error type, times. */
export function runEndOf(
  record: JobRecord,
  maxError: number,
): { error?: string; errorType?: string; executionTime?: number; delayTime?: number } {
  const end: ReturnType<typeof runEndOf> = {};
  const error = errorText(record.error);
  if (error !== undefined) end.error = error.length > maxError ? `${error.slice(0, maxError)}…` : error;
  const type = errorType(record.error);
  if (type !== undefined) end.errorType = type;
  if (record.executionTime !== undefined) end.executionTime = record.executionTime;
  if (record.delayTime !== undefined) end.delayTime = record.delayTime;
  return end;
}
