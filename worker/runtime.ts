/** Temporal's runtime for the process (logs, metrics), and its quiet stop: an unreachable server is expected then. */
import { DefaultLogger, Runtime, makeTelemetryFilterString, type LogLevel, type LogMetadata } from '@temporalio/worker';

/**
 * What the core writes while the server cannot be reached: a failed connect, a closed or broken
 * transport (e.g. its `shutdown_worker` call cancelled by a connection the server closed). Once the process is stopping these say only that the server stopped first (e.g. a
 * `pkill -INT` or a Ctrl-C reached it too).
 */
const UNREACHABLE =
  /\bUnavailable\b|tcp connect error|connection refused|connection closed|transport error|broken pipe|connection reset|channel (has been )?(shut down|closed)/i;

/** Whether this process stops: set by {@link temporalStopping}. */
let stopping = false;

/**
 * Marks this process's Temporal traffic as ending (a daemon closes): from now on the runtime's
 * warnings and errors about an unreachable server are dropped — on a stop, the server may well be
 * gone first. Every other line still goes to stderr.
 */
export function temporalStopping(): void {
  stopping = true;
}

/** True if `message` or its metadata says the server could not be reached. */
export function saysUnreachable(message: string, meta?: LogMetadata): boolean {
  if (UNREACHABLE.test(message)) return true;
  if (!meta) return false;
  return Object.values(meta).some((v) =>
    typeof v === 'string' ? UNREACHABLE.test(v) : v instanceof Error && UNREACHABLE.test(v.message),
  );
}

/** Temporal's default logger (stderr), without the unreachable-server lines once the process stops. */
class StoppingAwareLogger extends DefaultLogger {
  override log(level: LogLevel, message: string, meta?: LogMetadata): void {
    if (stopping && (level === 'WARN' || level === 'ERROR') && saysUnreachable(message, meta)) return;
    super.log(level, message, meta);
  }
}

/**
 * Installs Temporal's runtime once per process: its log output at WARN and above, and its
 * Prometheus metrics on `127.0.0.1:<metricsPort>` (0: none). Returns the metrics URL.
 */
export function installTemporalRuntime(
  metricsPort: number,
  level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' = 'WARN',
): string | undefined {
  const bindAddress = metricsPort > 0 ? `127.0.0.1:${metricsPort}` : undefined;
  Runtime.install({
    logger: new StoppingAwareLogger(level),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: level }), forward: {} },
      ...(bindAddress ? { metrics: { prometheus: { bindAddress } } } : {}),
    },
  });
  return bindAddress ? `http://${bindAddress}/metrics` : undefined;
}
