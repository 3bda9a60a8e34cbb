/**
 * The scaler's pull of batch backlogs: lists the batch workflows running on Temporal and queries
 * each one's `batchState` (remaining work, average job time, deadline). One scan serves every
 * scaler of the daemon (cached for the age the caller accepts) and queries at most `limit` batches.
 */
import { type Client } from '@temporalio/client';
import { type BatchState } from '../../contracts';
import { BATCH_QUERIES, WORKFLOW_TYPES } from '../../contracts/names';

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

  const scan = async (): Promise<BacklogScan> => {
    const at = Date.now();
    const ids: string[] = [];
    let truncated = false;
    for await (const w of client.workflow.list({ query: RUNNING_BATCHES, pageSize: limit + 1 })) {
      if (ids.includes(w.workflowId)) continue;
      if (ids.length >= limit) {
        truncated = true;
        break;
      }
      ids.push(w.workflowId);
    }
    const answers = await Promise.allSettled(
      ids.map((id) => within(client.workflow.getHandle(id).query<BatchState>(BATCH_QUERIES.state), queryTimeoutMs)),
    );
    const batches: PulledBacklog[] = [];
    answers.forEach((a, i) => {
      const b = a.status === 'fulfilled' ? backlogOf(ids[i]!, a.value) : undefined;
      if (b) batches.push(b);
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
