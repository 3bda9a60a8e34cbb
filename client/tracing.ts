/**
 * Traces from the library's side: with OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, a Temporal client interceptor that opens a span per
 * workflow start, signal, query and update and carries its context in the workflow's headers, so
 * the daemon's workflow and activity spans join the caller's trace. Unset: no interceptor at all.
 */
import { type WorkflowClientInterceptor } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { startTracing } from '../common/tracing';
import { otlpEndpoints } from '../common/traces-url';

/** What to give `new Client({ interceptors })`, and the flush before the process ends. */
export interface ClientTracing {
  interceptors: { workflow: WorkflowClientInterceptor[] };
  /** Sends the spans not sent yet (call it before the process exits). */
  shutdown(): Promise<void>;
}

/**
 * The client interceptors for the standard OpenTelemetry variables in `env` (spans of service
 * `serviceName`, or OTEL_SERVICE_NAME): `new Client({ connection, interceptors: t.interceptors })`.
 */
export function clientTracing(
  env: Record<string, string | undefined> = process.env,
  serviceName = 'sluice-client',
): ClientTracing {
  const tracing = startTracing({ serviceName, ...otlpEndpoints(env) });
  if (!tracing) return { interceptors: { workflow: [] }, shutdown: async () => {} };
  return {
    interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    shutdown: () => tracing.shutdown().catch(() => undefined),
  };
}
