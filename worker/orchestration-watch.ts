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

  /** One kind's round: the running ones' states, then the final state of each that stopped since. */
  const follow = async <S extends { phase: string }>(
    kept: RetainedStates<S>,
    listQuery: string,
    stateQuery: string,
    ids: { of: (workflowId: string) => string; workflow: (id: string) => string },
    now: number,
    fill: (s: S) => S = (s) => s,
  ): Promise<void> => {
    const listed = await listIds(o.client, listQuery, maxBatches);
    const states = await inParallel(listed, (id) => query<S>(id, stateQuery));
    states.forEach((s) => s && kept.set(fill(s), now));
    const running = new Set(listed.map(ids.of));
    for (const id of kept.running().filter((b) => !running.has(b))) {
      const final = await finalState<S>(o.client, ids.workflow(id), timeoutMs);
      if (final) kept.set(fill({ ...final, phase: 'done' }), now);
      else kept.ended(id, now);
    }
    kept.prune(now);
  };
  const batchRound = (now: number): Promise<void> =>
    follow<BatchState>(
      o.batches,
      o.runningBatches,
      BATCH_QUERIES.state,
      { of: batchIdOf, workflow: batchWorkflowId },
      now,
    );
  /** After the batches' round: each stage gets its batch's state as this round read it. */
  const pipelineRound = (now: number): Promise<void> =>
    o.pipelines
      ? follow<PipelineState>(
          o.pipelines,
          RUNNING_PIPELINES,
          PIPELINE_QUERIES.state,
          { of: pipelineIdOf, workflow: pipelineWorkflowId },
          now,
          (s) => ({
            ...s,
            stages: s.stages.map((st) => {
              const batch = o.batches.get(batchIdOf(st.batchId)) ?? st.batch;
              return batch ? { ...st, batch } : st;
            }),
          }),
        )
      : Promise.resolve();
  const scalerRound = async (): Promise<void> => {
    const ids = await listIds(o.client, RUNNING_SCALERS, maxBatches);
    const states = await inParallel(ids, (id) => query<ScalerState>(id, SCALER_QUERIES.state));
    o.scalers.set(states.filter((s): s is ScalerState => s !== undefined));
  };
  let running: Promise<void> | undefined;
  const round = (): Promise<void> =>
    (running ??= Promise.all([batchRound(Date.now()).then(() => pipelineRound(Date.now())), scalerRound()])
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
