/**
 * A span around each call of the queue API (`queue run`, `queue status`, `queue stream`, ...):
 * the whole call, rate-budget waits and retries included, a child of the caller's span (the
 * activity's). Without a registered tracer provider (common/tracing.ts) these are the API's no-ops.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

const tracer = trace.getTracer('sluice');

/** What names a call in its span. */
export interface TracedCall {
  operation: string;
  method: string;
  endpointId: string;
  jobId?: string;
}

/** Runs `fn` inside a client span named after the queue operation; its failure marks the span. */
export function traced<T>(c: TracedCall, fn: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(`queue ${c.operation}`, { kind: SpanKind.CLIENT }, async (span) => {
    span.setAttribute('http.request.method', c.method);
    span.setAttribute('sluice.endpoint_id', c.endpointId);
    if (c.jobId) span.setAttribute('sluice.remote_job_id', c.jobId);
    try {
      const out = await fn();
      const id = (out as { id?: unknown } | null)?.id;
      if (!c.jobId && typeof id === 'string') span.setAttribute('sluice.remote_job_id', id);
      return out;
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}
