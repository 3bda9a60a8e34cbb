/**
 * Whether a process traces, and where to: the standard OTLP variables read without loading
 * OpenTelemetry's SDK (./tracing loads it), so a command that does not trace never pays for it.
 */

/** The collector's URLs as the standard variables give them. */
export interface OtlpEndpoints {
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`: the collector's base URL; traces go to `<it>/v1/traces`. */
  endpoint?: string;
  /** `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`: the full URL of traces, before `endpoint`. */
  tracesEndpoint?: string;
}

/** The endpoints set in `env` (empty values are unset). */
export const otlpEndpoints = (env: Record<string, string | undefined>): OtlpEndpoints => ({
  ...(env.OTEL_EXPORTER_OTLP_ENDPOINT ? { endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT } : {}),
  ...(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? { tracesEndpoint: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT } : {}),
});

/** Where traces go; undefined: tracing is off. */
export function tracesUrl(o: OtlpEndpoints): string | undefined {
  if (o.tracesEndpoint) return o.tracesEndpoint;
  return o.endpoint ? `${o.endpoint.replace(/\/+$/, '')}/v1/traces` : undefined;
}
