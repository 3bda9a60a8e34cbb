import { loadConfig } from '../../worker/config';
import { ConfigError } from '../../worker/errors';
import { startDaemon } from '../../worker/daemon';
import { installTemporalRuntime } from '../../worker/runtime';
import { untilSignal } from './platform';

/**
 * `sluice worker`: the orchestrator daemon alone, configured by environment variables
 * (TEMPORAL_*, SLUICE_*). A bad variable stops it with a message naming it (exit 2).
 */
export async function workerCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help')) {
    console.log('usage: sluice worker   (configured by TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, SLUICE_QUEUE_URL, SLUICE_API_KEY, SLUICE_RESULTS_DIR, SLUICE_DAEMON_PORT, SLUICE_PUBLIC_URL, ...; see docs/orchestrator.md)');
    return 0;
  }
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`sluice worker: invalid configuration: ${err.message}`);
      return 2;
    }
    throw err;
  }
  const temporalMetricsUrl = installTemporalRuntime(config.SLUICE_TEMPORAL_METRICS_PORT);
  const daemon = await startDaemon({ config, ...(temporalMetricsUrl ? { temporalMetricsUrl } : {}) });
  console.log(`sluice worker running: webhooks ${config.SLUICE_PUBLIC_URL ?? daemon.url}/hooks/..., health ${daemon.url}/healthz, metrics ${daemon.url}/metrics`);
  await Promise.race([untilSignal(), daemon.done]);
  await daemon.close();
  return 0;
}
