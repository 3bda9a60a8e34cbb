/**
 * Feeds the batch and scaler series (worker/batch-metrics.ts, scaler-metrics.ts): every
 * `intervalMs` it lists the running batch and scaler workflows (Temporal visibility) and asks
 * each for its state (the queries the CLI sends), at most `maxBatches` batches; a batch that
 * stopped running is asked once for its result (the final state) and kept for the retention.
 */
import { type Client } from '@temporalio/client';
import { type Logger } from 'pino';
import {
  BATCH_QUERIES,
  SCALER_QUERIES,
  batchIdOf,
  batchWorkflowId,
  type BatchState,
  type ScalerState,
} from '../contracts';
import { type BatchMetrics } from './batch-metrics';
import { type ScalerMetrics } from './scaler-metrics';

/** Options of {@link watchOrchestrations}. */
export interface OrchestrationWatchOptions {
  client: Pick<Client, 'workflow'>;
  batches: BatchMetrics;
  scalers: ScalerMetrics;
  logger: Logger;
  /** Visibility query of the running batches (activities/scaler/backlog.ts `RUNNING_BATCHES`). */
  runningBatches: string;
  /**
   * Time between two rounds, ms (0: no round, no batch or scaler series).
   * @default 15000
   */
  intervalMs?: number;
  /**
   * Batches queried at most each round (the series' cardinality bound); the others have no series.
   * @default 200
   */
  maxBatches?: number;
  /**
   * How long a query may take, ms.
   * @default 5000
   */
  queryTimeoutMs?: number;
}

export const RUNNING_SCALERS = "WorkflowType = 'scalerWorkflow' AND ExecutionStatus = 'Running'";
/** Queries sent at once. */
const PARALLEL = 4;

/** A running watch: `round()` runs one now (tests, and the first scrape), `stop()` ends it. */
export interface OrchestrationWatch {
  round(): Promise<void>;
  stop(): void;
}

/** Starts the rounds; a failed round is logged (once per kind of error) and the next one goes on. */
export function watchOrchestrations(o: OrchestrationWatchOptions): OrchestrationWatch {
  const intervalMs = o.intervalMs ?? 15_000;
  const maxBatches = o.maxBatches ?? 200;
  const timeoutMs = o.queryTimeoutMs ?? 5000;
  const wf = o.client.workflow;
  const query = <T>(workflowId: string, name: string): Promise<T> =>
    within(wf.getHandle(workflowId).query<T>(name), timeoutMs);
  let said = '';
  /** Stopped: a round still under way ends quietly (the daemon is closing its client). */
  let stopped = false;

  const batchRound = async (now: number): Promise<void> => {
    const ids = await listIds(o.client, o.runningBatches, maxBatches);
    const states = await inParallel(ids, (id) => query<BatchState>(id, BATCH_QUERIES.state));
    states.forEach((s) => s && o.batches.set(s, now));
    const listed = new Set(ids.map(batchIdOf));
    for (const id of o.batches.running().filter((b) => !listed.has(b))) {
      const final = await finalState(o.client, batchWorkflowId(id), timeoutMs);
      if (final) o.batches.set({ ...final, phase: 'done' }, now);
      else o.batches.ended(id, now);
    }
    o.batches.prune(now);
  };
  const scalerRound = async (): Promise<void> => {
    const ids = await listIds(o.client, RUNNING_SCALERS, maxBatches);
    const states = await inParallel(ids, (id) => query<ScalerState>(id, SCALER_QUERIES.state));
    o.scalers.set(states.filter((s): s is ScalerState => s !== undefined));
  };
  let running: Promise<void> | undefined;
  const round = (): Promise<void> =>
    (running ??= Promise.all([batchRound(Date.now()), scalerRound()])
      .then(() => undefined)
      .catch((err: unknown) => {
        const msg = (err as Error).message;
        if (!stopped && msg !== said) o.logger.warn({ err: msg }, 'batch and scaler metrics: a round failed');
        said = msg;
      })
      .finally(() => (running = undefined)));
  const timer = intervalMs > 0 ? setInterval(() => void round(), intervalMs) : undefined;
  timer?.unref();
  if (intervalMs > 0) void round();
  return {
    round,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/** The workflow ids a visibility query lists, each once, at most `limit`. */
async function listIds(client: Pick<Client, 'workflow'>, query: string, limit: number): Promise<string[]> {
  const ids = new Set<string>();
  for await (const w of client.workflow.list({ query, pageSize: Math.min(limit, 1000) })) {
    if (ids.size >= limit) break;
    ids.add(w.workflowId);
  }
  return [...ids];
}

/** A closed batch's final state: its result when it completed, else nothing. */
async function finalState(client: Pick<Client, 'workflow'>, workflowId: string, ms: number) {
  try {
    const h = client.workflow.getHandle(workflowId);
    const d = await within(h.describe(), ms);
    return d.status.name === 'COMPLETED' ? await within(h.result() as Promise<BatchState>, ms) : undefined;
  } catch {
    return undefined;
  }
}

/** `fn` of every id, {@link PARALLEL} at a time; a failed one is undefined. */
async function inParallel<T>(ids: string[], fn: (id: string) => Promise<T>): Promise<(T | undefined)[]> {
  const out: (T | undefined)[] = new Array<T | undefined>(ids.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < ids.length) {
      const i = next++;
      out[i] = await fn(ids[i]!).catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, ids.length) }, lane));
  return out;
}

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)),
  );
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
