/**
 * The scaler's pull of batch backlogs: lists the batch workflows running on Temporal and queries
 * each one's `batchState` (remaining work, average job time, deadline); a pipeline's stage batch
 * also counts the inputs not yet fed to it (its pipeline's `pipelineState`). One scan serves every
 * scaler of the daemon (cached for the age the caller accepts) and queries at most `limit` batches
 * (and as many pipelines).
 */
import { type Client } from '@temporalio/client';
import { type BatchState, type PipelineState } from '../../contracts';
import { BATCH_QUERIES, PIPELINE_QUERIES, WORKFLOW_TYPES } from '../../contracts/names';

/** Options of {@link backlogScanner}. */
export interface BacklogScanOptions {
  /** Running batches queried at most per scan (the newest first, as visibility lists them). @default 20 */
  limit?: number;
  /** Time one `batchState` query may take before the batch is left out of the scan, ms. @default 5000 */
  queryTimeoutMs?: number;
}

/** One running batch's backlog, as read from its state. */
export interface PulledBacklog {
  /** The batch workflow id. */
  source: string;
  endpointId: string;
  /** Inputs not finished yet (queued, in flight, waiting for a retry, not submitted). */
  remaining: number;
  /** The batch's average job execution time so far, ms (absent until a job finished). */
  jobMs?: number;
  deadline?: number;
  /** The batch's in-flight cap. */
  concurrency: number;
}

/** What one scan found. */
export interface BacklogScan {
  at: number;
  batches: PulledBacklog[];
  /** Running batch workflows listed, queried, and whose query failed or timed out. */
  listed: number;
  queried: number;
  failed: number;
  /** More batches ran than `limit`: the rest were not queried. */
  truncated: boolean;
}

/** Visibility query of the running batches (the dev server's SQLite visibility supports it, as does Temporal Cloud's). */
export const RUNNING_BATCHES = `WorkflowType = '${WORKFLOW_TYPES.batch}' AND ExecutionStatus = 'Running'`;
export const RUNNING_PIPELINES = `WorkflowType = '${WORKFLOW_TYPES.pipeline}' AND ExecutionStatus = 'Running'`;

/**
 * The inputs a running pipeline has not fed to each stage yet, by the stage's batch id: the lines
 * not read, and the inputs at an earlier stage. Each counts as one job (a `when` may skip it, an
 * `each` make several): an estimate, as a batch's remaining is. None once it stopped submitting.
 */
export function pipelineUpstream(s: PipelineState): Map<string, number> {
  const up = new Map<string, number>();
  if (s.phase !== 'running' && s.phase !== 'paused') return up;
  let before = s.stopped !== undefined ? 0 : Math.max(0, (s.counts.total ?? s.counts.read) - s.counts.read);
  for (const st of s.stages) {
    if (before > 0) up.set(st.batchId, before);
    before += s.stopped !== undefined ? 0 : st.active;
  }
  return up;
}

/** A batch's backlog from its state; undefined when it submits nothing more (cancelling, finishing, done). */
export function backlogOf(source: string, s: BatchState): PulledBacklog | undefined {
  if (s.phase !== 'running' && s.phase !== 'paused') return undefined;
  const remaining = Math.max(0, Math.max(s.counts.total ?? 0, s.counts.read) - s.counts.done);
  return {
    source,
    endpointId: s.endpointId,
    remaining,
    concurrency: s.options.concurrency,
    ...(s.avgExecutionMs !== undefined && s.avgExecutionMs > 0 ? { jobMs: Math.round(s.avgExecutionMs) } : {}),
    ...(s.options.deadline !== undefined ? { deadline: s.options.deadline } : {}),
  };
}

const within = <T>(p: Promise<T>, ms: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)),
  );
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
};

/** A scanner: `scan(maxAgeMs)` answers the last scan when it is at most that old, else scans (concurrent callers share one). */
export function backlogScanner(
  client: Pick<Client, 'workflow'>,
  o: BacklogScanOptions = {},
): (maxAgeMs: number) => Promise<BacklogScan> {
  const limit = o.limit ?? 20;
  const queryTimeoutMs = o.queryTimeoutMs ?? 5000;
  let last: BacklogScan | undefined;
  let running: Promise<BacklogScan> | undefined;

  /** The running workflows of `query` (at most `limit`), and whether more ran. */
  const listRunning = async (query: string): Promise<{ ids: string[]; truncated: boolean }> => {
    const ids: string[] = [];
    for await (const w of client.workflow.list({ query, pageSize: limit + 1 })) {
      if (ids.includes(w.workflowId)) continue;
      if (ids.length >= limit) return { ids, truncated: true };
      ids.push(w.workflowId);
    }
    return { ids, truncated: false };
  };
  const ask = <T>(ids: string[], query: string) =>
    Promise.allSettled(ids.map((id) => within(client.workflow.getHandle(id).query<T>(query), queryTimeoutMs)));

  const scan = async (): Promise<BacklogScan> => {
    const at = Date.now();
    const [{ ids, truncated }, pipelines] = await Promise.all([
      listRunning(RUNNING_BATCHES),
      listRunning(RUNNING_PIPELINES),
    ]);
    const [answers, stages] = await Promise.all([
      ask<BatchState>(ids, BATCH_QUERIES.state),
      ask<PipelineState>(pipelines.ids, PIPELINE_QUERIES.state),
    ]);
    // A stage's batch: the rows fed and not done, and the inputs its pipeline has not fed it yet.
    const upstream = new Map<string, number>();
    for (const p of stages)
      if (p.status === 'fulfilled') for (const [id, n] of pipelineUpstream(p.value)) upstream.set(id, n);
    const batches: PulledBacklog[] = [];
    answers.forEach((a, i) => {
      const b = a.status === 'fulfilled' ? backlogOf(ids[i]!, a.value) : undefined;
      if (b) batches.push({ ...b, remaining: b.remaining + (upstream.get(b.source) ?? 0) });
    });
    return {
      at,
      batches,
      listed: ids.length,
      queried: ids.length,
      failed: answers.filter((a) => a.status === 'rejected').length,
      truncated,
    };
  };

  return async (maxAgeMs) => {
    if (last && Date.now() - last.at <= maxAgeMs) return last;
    running ??= scan()
      .then((s) => (last = s))
      .finally(() => (running = undefined));
    return running;
  };
}
