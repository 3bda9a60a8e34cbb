import { DefaultLogger, Runtime, makeTelemetryFilterString } from '@temporalio/worker';

/**
 * Installs Temporal's runtime once per process: its log output at WARN and above, and its
 * Prometheus metrics on `127.0.0.1:<metricsPort>` (0: none). Returns the metrics URL.
 */
export function installTemporalRuntime(metricsPort: number, level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' = 'WARN'): string | undefined {
  const bindAddress = metricsPort > 0 ? `127.0.0.1:${metricsPort}` : undefined;
  Runtime.install({
    logger: new DefaultLogger(level),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: level }), forward: {} },
      ...(bindAddress ? { metrics: { prometheus: { bindAddress } } } : {}),
    },
  });
  return bindAddress ? `http://${bindAddress}/metrics` : undefined;
}
