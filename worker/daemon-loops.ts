/** The daemon's loops beside its worker: the orchestration watch (the batch, pipeline and scaler series of /metrics) and the rate share. */
import { RUNNING_BATCHES } from '../activities/scaler/backlog';
import { BatchMetrics } from './batch-metrics';
import { type DaemonParts } from './daemon-parts';
import { watchOrchestrations } from './orchestration-watch';
import { PipelineMetrics } from './pipeline-metrics';
import { startRateShare, type RateShare } from './rate-share';
import { ScalerMetrics } from './scaler-metrics';

/** The daemon's running loops. */
export interface DaemonLoops {
  /** This daemon's share of the rate (absent with SLUICE_RATE_SCALE). */
  share: RateShare | undefined;
  /** Stops the watch, then the share. */
  stop(): void;
}

/** Starts the orchestration watch, and the rate share unless SLUICE_RATE_SCALE fixes the daemon's scale. */
export function startLoops(p: DaemonParts): DaemonLoops {
  const { config, client, metrics, logger } = p;
  // The batch, pipeline and scaler series of /metrics: their workflows' states, asked every interval.
  const watch = watchOrchestrations({
    client,
    batches: new BatchMetrics(metrics.registry, { retentionMs: config.SLUICE_METRICS_RETENTION_MS }),
    pipelines: new PipelineMetrics(metrics.registry, { retentionMs: config.SLUICE_METRICS_RETENTION_MS }),
    scalers: new ScalerMetrics(metrics.registry),
    logger,
    runningBatches: RUNNING_BATCHES,
    intervalMs: config.SLUICE_METRICS_INTERVAL_MS,
    maxBatches: config.SLUICE_METRICS_MAX_BATCHES,
  });
  const share =
    config.SLUICE_RATE_SCALE === undefined
      ? startRateShare({
          client,
          namespace: config.TEMPORAL_NAMESPACE,
          taskQueue: config.SLUICE_TASK_QUEUE,
          identity: p.identity,
          budget: p.clients.budget,
          logger,
        })
      : undefined;
  return {
    share,
    stop: () => {
      watch.stop();
      share?.stop();
    },
  };
}
