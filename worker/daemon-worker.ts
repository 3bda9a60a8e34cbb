/** The daemon's Temporal worker: the activities of every workflow, built on the daemon's clients, store and hub, and the workflow bundle (traced when configured). */
import { WorkflowNotFoundError } from '@temporalio/client';
import { type DataConverter } from '@temporalio/common';
import { type NativeConnection, Worker } from '@temporalio/worker';
import { createBatchActivities } from '../activities/batch/activities';
import { PriorityBoard } from '../activities/batch/priority-board';
import { createInputActivities } from '../activities/inputs';
import { createJobActivities } from '../activities/job/activities';
import { createPipelineActivities } from '../activities/pipeline/activities';
import { createScalerActivities } from '../activities/scaler/activities';
import { backlogScanner } from '../activities/scaler/backlog';
import { createScaleWindowActivities } from '../activities/scaler/window';
import { type Tracing } from '../common/tracing';
import { resultsUrlOf } from '../config/settings';
import { type BatchState, type PipelineState } from '../contracts';
import { BATCH_QUERIES, BATCH_SIGNALS, PIPELINE_QUERIES } from '../contracts/names';
import { type StoreInbox } from '../results/batch/store-inbox';
import { batchRoots, type BatchRoots } from '../results/batch/roots';
import { type DaemonParts } from './daemon-parts';
import { workerTracing } from './tracing';
import { type WebhookHub } from './webhook-hub';

/** What the worker needs beyond the daemon's parts. */
export interface DaemonWorkerDeps {
  connection: NativeConnection;
  dataConverter: DataConverter;
  hub: WebhookHub;
  inbox: StoreInbox;
}

/**
 * How long a run's next workflow task waits for the daemon that ran its last one (its cached run)
 * before any daemon takes it (replaying the run's history). The SDK's 10 s was the longest stop of
 * a batch whose daemon was SIGKILLed and restarted at once (issue 19's kills, bench/faults): its
 * retried step ran on the new daemon and then the run waited 10 s on the dead one's queue. A live
 * daemon slower than this only costs a replay.
 */
const STICKY_TIMEOUT = '3 seconds';

/**
 * Most time between two heartbeats an activity sends Temporal (its own calls to heartbeat, kept
 * back at most this long; the SDK's default, 0.8 of the heartbeat timeout, is the longer when
 * above). A batch step's timeout is 3 s (workflows/batch/workflow.ts): its heartbeat then reaches
 * the server every second, so a live daemon's step has 2 s of slack (a slow call, a stalled
 * event loop) where 0.8 of the timeout would leave it 0.6 s.
 */
const HEARTBEAT_EVERY = '1 second';

/** Creates the worker (not running yet) and the tracing to shut down after it, when configured. */
export async function createDaemonWorker(
  p: DaemonParts,
  d: DaemonWorkerDeps,
): Promise<{ worker: Worker; tracing: Tracing | undefined }> {
  const { config } = p;
  // Where batches (and per-job children reading their lines) may read and write.
  const roots = batchRoots(config.SLUICE_BATCH_ROOTS, resultsUrlOf(config));
  // Traces when OTEL_EXPORTER_OTLP_ENDPOINT is set: the interceptors, their sink, their bundle.
  const traces = await workerTracing(config);
  const worker = await Worker.create({
    connection: d.connection,
    identity: p.identity,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.SLUICE_TASK_QUEUE,
    ...traces.options,
    dataConverter: d.dataConverter,
    activities: daemonActivities(p, d, roots),
    maxConcurrentActivityTaskExecutions: config.SLUICE_MAX_CONCURRENT_ACTIVITIES,
    shutdownGraceTime: config.SLUICE_SHUTDOWN_GRACE_MS,
    stickyQueueScheduleToStartTimeout: STICKY_TIMEOUT,
    maxHeartbeatThrottleInterval: HEARTBEAT_EVERY,
  });
  return { worker, tracing: traces.tracing };
}

/** The activities of every workflow the daemon hosts: job, batch, scaler, scale window, inputs, pipeline. */
function daemonActivities(p: DaemonParts, d: DaemonWorkerDeps, roots: BatchRoots): object {
  const { store, metrics, client } = p;
  const { hub } = d;
  const { queue, graphql, price } = p.clients;
  return {
    ...createJobActivities({ queue, store, hub, metrics, roots }),
    ...createBatchActivities({
      queue,
      store,
      hub,
      inbox: d.inbox,
      metrics,
      price,
      health: p.health,
      board: new PriorityBoard(),
      roots,
      unstick: async (execution) => {
        await client.workflowService.resetStickyTaskQueue({ namespace: p.config.TEMPORAL_NAMESPACE, execution });
      },
    }),
    ...createScalerActivities({ queue, graphql, price, metrics, backlogs: backlogScanner(client) }),
    ...createScaleWindowActivities({ client, graphql }),
    ...createInputActivities(),
    ...createPipelineActivities({
      store,
      roots,
      queue,
      batchSpend: async (id) => (await client.workflow.getHandle(id).query<BatchState>(BATCH_QUERIES.state)).spend,
      pipelineState: (id) => client.workflow.getHandle(id).query<PipelineState>(PIPELINE_QUERIES.state),
      // A stage's batch that has ended (cancelled) takes no signal: not a failure of the step.
      signalFeed: (id, feed) =>
        client.workflow
          .getHandle(id)
          .signal(BATCH_SIGNALS.feed, feed)
          .then(
            () => true,
            (err: unknown) => {
              if (err instanceof WorkflowNotFoundError) return false;
              throw err;
            },
          ),
    }),
  };
}
