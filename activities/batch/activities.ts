/**
 * The batch activities, bound to their dependencies: open (check the input and the endpoint, count
 * the lines, find the price), step (all per-job I/O, in bulk) and finish (outcome files).
 */
import { Context } from '@temporalio/activity';
import { FailureType } from '../../contracts/names';
import { isPlatformApiError } from '../../platform-api';
import { createChildActivities } from './children';
import { batchInput, isS3Location, type BatchInput } from '../../results/batch/locations';
import { batchLocationRefusal, type BatchRoots } from '../../results/batch/roots';
import { type BatchInbox } from '../../results/batch/inbox';
import { selectFailed, type SelectRequest, type SelectResult } from '../../results/batch/rerun';
import { type CompletionHub } from '../../results/completion-hub';
import { isStoreError } from '../../results/errors';
import { type ObjectStore } from '../../results/store/object-store';
import { noopMetrics, type ActivityMetrics } from '../../common/metrics';
import { type PriorityBoard } from './priority-board';
import { InFlightJobs } from './in-flight';
import { DetachedSubmissions } from './detached';
import { type WebhookHealth } from '../../results/webhook-health';
import { finishBatch, type FinishRequest, type FinishResult } from './finish';
import { runStep } from './step';
import { attempt, beat, whileBeating } from '../heartbeat';
import { type StepRequest, type StepResult } from './types';
import { fatal, toFailure } from '../errors';
import { countedQueue, type QueueMethods } from '../service-calls';

export type { StepRequest, StepResult } from './types';
export type { FinishRequest, FinishResult } from './finish';
export type { ChildFinal, ChildOutcomesRequest, ChildPage, ChildPageRequest } from './children';
export type { SelectRequest, SelectResult } from '../../results/batch/rerun';

/** What the batch activities need; injected by the daemon (and by tests). */
export interface BatchActivityDeps {
  queue: QueueMethods;
  store: ObjectStore;
  /** Where webhooks of batch jobs wait; without it (or a hub), batches poll. */
  inbox?: BatchInbox;
  hub?: CompletionHub;
  /** The price of one worker-hour of an endpoint (USD), when the service tells it. */
  price?: (endpointId: string) => Promise<number | undefined>;
  metrics?: ActivityMetrics;
  /** The daemon's batches with input left, by endpoint and priority (lower-priority steps yield). */
  board?: PriorityBoard;
  /** Where batches may read and write (SLUICE_BATCH_ROOTS); without it, anywhere the daemon can reach. */
  roots?: BatchRoots;
  /** Whether webhooks reach the daemon: when they stop, batch jobs are polled steadily. */
  health?: WebhookHealth;
  /**
   * Sends the workflow's next task to any daemon instead of the one that ran its last (Temporal's
   * ResetStickyTaskQueue): a retried step's daemon most likely died, and its sticky queue would
   * hold the task the step's end schedules for the sticky timeout (3 s) first.
   */
  unstick?: (execution: { workflowId: string; runId: string }) => Promise<void>;
}

export interface OpenRequest {
  endpointId: string;
  source: string;
  /** The source is an open feed (a pipeline's stage); else a folder is refused. @default false */
  feed?: boolean;
  pricePerHour?: number;
}

export interface OpenResult {
  total: number;
  bytes: number;
  pricePerHour?: number;
}

export function createBatchActivities(deps: BatchActivityDeps) {
  const metrics = deps.metrics ?? noopMetrics;
  const queue = countedQueue(deps.queue, metrics);
  const webhooks = deps.inbox ? deps.hub : undefined;
  const inFlight = new InFlightJobs();
  const detached = new DetachedSubmissions();
  const open = (req: OpenRequest): Promise<OpenResult> => openBatch(deps, queue, req);
  return withinRoots(deps.roots, {
    /** Checks the input file and the endpoint, counts the inputs, finds the price of a worker-hour. */
    openBatch: (req: OpenRequest): Promise<OpenResult> => open(req),

    /** One step: outcomes, submissions, retries, cancels, polls, completions (see activities/batch/step.ts). */
    async batchStep(req: StepRequest): Promise<StepResult> {
      // A step that fails (the service or the store did not answer) makes what the batch learnt
      // of its jobs' pace no guide to the jobs in flight across the failure (lateness.ts).
      const failed = (err: unknown): never => {
        inFlight.failed(req.run.workflowId);
        throw err;
      };
      return whileBeating(async () => {
        const execution = attempt() > 1 ? Context.current().info.workflowExecution : undefined;
        if (execution && deps.unstick) await deps.unstick(execution).catch(() => undefined);
        // The batch's first step opens it first (each attempt again: the checks only read).
        const opened = req.open
          ? await open({ endpointId: req.endpointId, source: req.source, ...req.open })
          : undefined;
        const stepped = await runStep(
          {
            queue,
            store: deps.store,
            ...(deps.inbox ? { inbox: deps.inbox } : {}),
            ...(webhooks ? { webhooks } : {}),
            ...(deps.price ? { price: deps.price } : {}),
            ...(deps.board ? { board: deps.board } : {}),
            ...(deps.health ? { health: deps.health } : {}),
            inFlight,
            detached,
          },
          req,
        ).catch(failed);
        return opened ? { ...stepped, opened } : stepped;
      });
    },

    /**
     * A rerun of the failed inputs (history name `selectFailed`): keeps the previous attempt's files
     * and selects the inputs to re-run (results/batch/rerun.ts); nothing to rerun is a bad request.
     */
    async selectFailed(req: SelectRequest): Promise<SelectResult> {
      try {
        return await selectFailed(deps.store, req, () => beat({ selecting: true }));
      } catch (err) {
        if (isStoreError(err, 'NO_RESULTS')) throw fatal(FailureType.BAD_REQUEST, err.message, { outDir: req.outDir });
        throw err;
      }
    },

    /** Writes the last outcomes and the output files. */
    async finishBatch(req: FinishRequest): Promise<FinishResult> {
      inFlight.drop(req.run.workflowId);
      detached.drop(req.run);
      deps.health?.forget(req.run.workflowId);
      // A small batch's finish is a local activity (workflows/batch/finish.ts): it has no heartbeat to send (Temporal's core warns at each).
      const beating = Context.current().info.isLocal ? () => undefined : () => beat({ finishing: true });
      return finishBatch(deps.store, req, beating);
    },

    /** The `--per-job-workflows` mode: pages of input lines, outcome segments of finished children. */
    ...createChildActivities(deps.store, deps.price),
  });
}

export type BatchActivities = ReturnType<typeof createBatchActivities>;

/**
 * The activities, each refusing (not retried) a request whose `source` or `outDir` lies outside the
 * roots: a workflow started by anyone on the task queue must not make the daemon read or write elsewhere.
 */
function withinRoots<A extends Record<string, (req: never) => Promise<unknown>>>(
  roots: BatchRoots | undefined,
  acts: A,
): A {
  if (!roots) return acts;
  const guarded = Object.entries(acts).map(([name, fn]) => [
    name,
    async (req: { source?: string; outDir?: string }) => {
      const refusal = batchLocationRefusal({ source: req.source, outDir: req.outDir }, roots);
      if (refusal) throw fatal(FailureType.BAD_REQUEST, refusal, { source: req.source, outDir: req.outDir });
      return (fn as (r: typeof req) => Promise<unknown>)(req);
    },
  ]);
  return Object.fromEntries(guarded) as A;
}

/** Checks the input and the endpoint, counts the inputs, finds the price (the `openBatch` activity, or a first step's `open`). */
async function openBatch(deps: BatchActivityDeps, queue: QueueMethods, req: OpenRequest): Promise<OpenResult> {
  const input = await existing(req.source, req.feed === true);
  if (!input) {
    const where = isS3Location(req.source) ? 'input object' : 'input file';
    throw fatal(FailureType.BAD_REQUEST, `${where} ${req.source} not found (it must be readable by the daemon)`, {
      source: req.source,
    });
  }
  // The endpoint's check, the line count and the price at once (issue 23: the first step waits for them).
  const [health, counted, price] = await Promise.allSettled([
    queue.health(req.endpointId),
    input.count(),
    req.pricePerHour ?? deps.price?.(req.endpointId).catch(() => undefined),
  ]);
  if (health.status === 'rejected') {
    if (isPlatformApiError(health.reason, 'NOT_FOUND'))
      throw fatal(FailureType.ENDPOINT_NOT_FOUND, `endpoint ${req.endpointId} not found`, {
        endpointId: req.endpointId,
      });
    throw toFailure(health.reason);
  }
  if (counted.status === 'rejected') throw counted.reason;
  const { lines, bytes } = counted.value;
  const perHour = price.status === 'fulfilled' ? price.value : undefined;
  return { total: lines, bytes, ...(perHour !== undefined ? { pricePerHour: perHour } : {}) };
}

/** The input when it exists; a bad s3:// URL is a bad request (not retried), network errors are retried. */
async function existing(source: string, feed: boolean): Promise<BatchInput | undefined> {
  try {
    const input = batchInput(source, { feed });
    return (await input.exists()) ? input : undefined;
  } catch (err) {
    if (isStoreError(err)) throw fatal(FailureType.BAD_REQUEST, `input ${source}: ${err.message}`, { source });
    throw err;
  }
}
