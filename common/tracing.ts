/**
 * OpenTelemetry traces of a sluice process: exported by OTLP/HTTP (JSON) when an endpoint is
 * configured (the standard `OTEL_EXPORTER_OTLP_ENDPOINT`, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`);
 * otherwise nothing is registered, and every span sluice opens is the API's no-op.
 */
import { trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { tracesUrl, type OtlpEndpoints } from './traces-url';

/** Options of {@link startTracing}: the standard variables' values and the process's name. */
export interface TracingOptions extends OtlpEndpoints {
  /** `service.name` of the spans, e.g. `sluice-daemon`; `OTEL_SERVICE_NAME` wins when set. */
  serviceName: string;
  /**
   * Longest wait before a batch of ended spans is sent, ms.
   * @default 2000
   */
  exportDelayMs?: number;
}

/** Tracing in force in this process: what the Temporal interceptors need, and its flush. */
export interface Tracing {
  url: string;
  resource: Resource;
  spanProcessor: SpanProcessor;
  /** Sends the spans not sent yet and stops (a process's last step). */
  shutdown(): Promise<void>;
}

let current: Tracing | undefined;

/**
 * Registers the process's tracer provider (once: a later call with an endpoint answers the first's)
 * and returns it, or undefined when no endpoint is configured (nothing registered, no cost beyond the API's
 * no-op calls). Headers and timeouts of the exporter follow the standard `OTEL_EXPORTER_OTLP_*`
 * variables.
 */
export function startTracing(o: TracingOptions): Tracing | undefined {
  const url = tracesUrl(o);
  if (!url) return undefined;
  if (current) return current;
  const resource = new Resource({ 'service.name': process.env.OTEL_SERVICE_NAME || o.serviceName });
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter({ url }), {
    scheduledDelayMillis: o.exportDelayMs ?? 2000,
  });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // Async context, so a span opened inside an activity is the child of the activity's span.
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
  current = {
    url,
    resource,
    spanProcessor,
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      current = undefined;
    },
  };
  return current;
}
