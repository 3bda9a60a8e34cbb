/**
 * The daemon's traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set: Temporal's OpenTelemetry
 * interceptors (`@temporalio/interceptors-opentelemetry`) on workflows (spans sent out of the
 * sandbox through the `exporter` sink) and activities, so a job's trace holds its workflow, its
 * activities (submit, wait or drain) and their queue calls (platform-api/tracing.ts). Off: nothing
 * of this is installed, and the plain workflow bundle runs.
 */
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import { type WorkerOptions } from '@temporalio/worker';
import { startTracing, type Tracing } from '../common/tracing';
import { workflowBundle } from './bundle';

/** The standard variables that turn tracing on (read by config/, passed here). */
export interface TracingSettings {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
}

/** What the worker is created with: the bundle and, when tracing, the interceptors and the sink. */
export interface WorkerTracing {
  tracing?: Tracing;
  options: Pick<WorkerOptions, 'workflowBundle' | 'interceptors' | 'sinks'>;
}

/** The worker's options for tracing as configured (none, and the plain bundle, when off). */
export async function workerTracing(c: TracingSettings): Promise<WorkerTracing> {
  const tracing = startTracing({
    serviceName: 'sluice-daemon',
    ...(c.OTEL_EXPORTER_OTLP_ENDPOINT ? { endpoint: c.OTEL_EXPORTER_OTLP_ENDPOINT } : {}),
    ...(c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? { tracesEndpoint: c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT } : {}),
  });
  if (!tracing) return { options: { workflowBundle: await workflowBundle() } };
  const modules = [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')];
  return {
    tracing,
    options: {
      workflowBundle: await workflowBundle(undefined, modules),
      interceptors: {
        activity: [
          (ctx) => ({
            inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
            outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
        ],
      },
      sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
    },
  };
}
