/**
 * Feeds the batch, pipeline and scaler series (worker/batch-metrics.ts, pipeline-metrics.ts,
 * scaler-metrics.ts): every `intervalMs` it lists the running batch, pipeline and scaler workflows
 * (Temporal visibility) and asks each for its state (the queries the CLI sends), at most
 * `maxBatches` of each; a batch or pipeline that stopped running is asked once for its result (the
 * final state) and kept for the retention. A pipeline's stages carry their batches' states.
 */
import { type Client } from '@temporalio/client';
import { type Logger } from 'pino';
import {
  BATCH_QUERIES,
  PIPELINE_QUERIES,
  SCALER_QUERIES,
  WORKFLOW_TYPES,
  batchIdOf,
  batchWorkflowId,
  pipelineIdOf,
  pipelineWorkflowId,
  type BatchState,
  type PipelineState,
  type ScalerState,
} from '../contracts';
import { type BatchMetrics } from './batch-metrics';
import { type RetainedStates } from './metric-series';
import { type PipelineMetrics } from './pipeline-metrics';
import { type ScalerMetrics } from './scaler-metrics';

/** Options of {@link watchOrchestrations}. */
export interface OrchestrationWatchOptions {
  client: Pick<Client, 'workflow'>;
  batches: BatchMetrics;
  /** The pipelines' series; none without. */
  pipelines?: PipelineMetrics;
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

export const RUNNING_SCALERS = `WorkflowType = '${WORKFLOW_TYPES.scaler}' AND ExecutionStatus = 'Running'`;
export const RUNNING_PIPELINES = `WorkflowType = '${WORKFLOW_TYPES.pipeline}' AND ExecutionStatus = 'Running'`;
/** Queries sent at once. */
const PARALLEL = 4;

/** A running watch: `round()` runs one now (tests, and the first scrape), `stop()` ends it. */
export interface OrchestrationWatch {
  round(): Promise<void>;
  stop(): void;
}

/** What every round reads with: the client, how many of a kind at most, how long a query may take. */
interface Reader {
  client: Pick<Client, 'workflow'>;
  limit: number;
  timeoutMs: number;
}

/** A kind of orchestration a round follows to its end: its series, how it is listed and asked, its ids. */
interface FollowedKind<S extends { phase: string }> {
  kept: RetainedStates<S>;
  listQuery: string;
  stateQuery: string;
  of: (workflowId: string) => string;
  workflow: (id: string) => string;
  /** What the series keeps of a state read. */
  fill?: (s: S) => S;
}

const queryState = <T>(r: Reader, workflowId: string, name: string): Promise<T> =>
  within(r.client.workflow.getHandle(workflowId).query<T>(name), r.timeoutMs);

/** One kind's round: the running ones' states, then the final state of each that stopped since. */
async function follow<S extends { phase: string }>(r: Reader, k: FollowedKind<S>, now: number): Promise<void> {
  const fill = k.fill ?? ((s: S) => s);
  const listed = await listIds(r.client, k.listQuery, r.limit);
  const states = await inParallel(listed, (id) => queryState<S>(r, id, k.stateQuery));
  states.forEach((s) => s && k.kept.set(fill(s), now));
  const running = new Set(listed.map(k.of));
  for (const id of k.kept.running().filter((b) => !running.has(b))) {
    const final = await finalState<S>(r.client, k.workflow(id), r.timeoutMs);
    if (final) k.kept.set(fill({ ...final, phase: 'done' }), now);
    else k.kept.ended(id, now);
  }
  k.kept.prune(now);
}

/** The pipelines as a round follows them: after the batches' round, each stage gets its batch's state as it read it. */
const pipelineKind = (pipelines: PipelineMetrics, batches: BatchMetrics): FollowedKind<PipelineState> => ({
  kept: pipelines,
  listQuery: RUNNING_PIPELINES,
  stateQuery: PIPELINE_QUERIES.state,
  of: pipelineIdOf,
  workflow: pipelineWorkflowId,
  fill: (s) => ({
    ...s,
    stages: s.stages.map((st) => {
      const batch = batches.get(batchIdOf(st.batchId)) ?? st.batch;
      return batch ? { ...st, batch } : st;
    }),
  }),
});

/** The running scalers' states (a scaler that stopped has no series). */
async function scalerRound(r: Reader, scalers: ScalerMetrics): Promise<void> {
  const ids = await listIds(r.client, RUNNING_SCALERS, r.limit);
  const states = await inParallel(ids, (id) => queryState<ScalerState>(r, id, SCALER_QUERIES.state));
  scalers.set(states.filter((s): s is ScalerState => s !== undefined));
}

/** One round of every kind: the batches then the pipelines (which read the batches' states), beside the scalers. */
async function roundOf(o: OrchestrationWatchOptions, r: Reader): Promise<void> {
  const batches: FollowedKind<BatchState> = {
    kept: o.batches,
    listQuery: o.runningBatches,
    stateQuery: BATCH_QUERIES.state,
    of: batchIdOf,
    workflow: batchWorkflowId,
  };
  const pipelines = o.pipelines && pipelineKind(o.pipelines, o.batches);
  await Promise.all([
    follow(r, batches, Date.now()).then(() => (pipelines ? follow(r, pipelines, Date.now()) : undefined)),
    scalerRound(r, o.scalers),
  ]);
}

/** Starts the rounds; a failed round is logged (once per kind of error) and the next one goes on. */
export function watchOrchestrations(o: OrchestrationWatchOptions): OrchestrationWatch {
  const intervalMs = o.intervalMs ?? 15_000;
  const r: Reader = { client: o.client, limit: o.maxBatches ?? 200, timeoutMs: o.queryTimeoutMs ?? 5000 };
  let said = '';
  /** Stopped: a round still under way ends quietly (the daemon is closing its client). */
  let stopped = false;
  let running: Promise<void> | undefined;
  const round = (): Promise<void> =>
    (running ??= roundOf(o, r)
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

/** A closed batch's or pipeline's final state: its result when it completed, else nothing. */
async function finalState<S>(client: Pick<Client, 'workflow'>, workflowId: string, ms: number): Promise<S | undefined> {
  try {
    const h = client.workflow.getHandle(workflowId);
    const d = await within(h.describe(), ms);
    return d.status.name === 'COMPLETED' ? await within(h.result() as Promise<S>, ms) : undefined;
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
