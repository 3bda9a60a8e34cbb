/**
 * The daemon's settings: the client variables every client reads (config/settings.ts: Temporal, the
 * service, the results store) and the daemon's own (where it listens, webhooks, limits, shutdown).
 */
import { z } from 'zod';
import { CLIENT_VARIABLES, bool, parseSettings, url, type TemporalSettings } from '../config/settings';
import { type TemporalProfileOptions } from '../config/temporal';

const port = z.coerce
  .number({ error: 'must be a port number from 0 to 65535' })
  .int({ error: 'must be a port number from 0 to 65535' })
  .min(0)
  .max(65535);

const DaemonSchema = z.object({
  ...CLIENT_VARIABLES,
  SLUICE_QUEUE_URL: url,
  SLUICE_API_KEY: z.string().min(1, { error: 'must not be empty' }),
  SLUICE_DAEMON_HOST: z.string().min(1).default('127.0.0.1'),
  SLUICE_DAEMON_PORT: port.default(8288),
  /** Base URL the service can reach the daemon's webhook receiver at; default http://HOST:PORT. */
  SLUICE_PUBLIC_URL: url.optional(),
  /** Secret of the webhook tokens; several daemons behind one public URL must share it. */
  SLUICE_WEBHOOK_SECRET: z.string().min(16, { error: 'must be at least 16 characters' }).optional(),
  /**
   * What a webhook body naming its URL's own job is worth: `binding`, its outcome as it is (one HTTP
   * call per job); `status`, confirmed by the job's `/status` like any other (webhooks crossing a
   * network the operator does not trust, without TLS). docs/orchestrator.md, "Webhooks".
   * @default 'binding'
   */
  SLUICE_WEBHOOK_CONFIRM: z.enum(['binding', 'status'], { error: 'must be binding or status' }).default('binding'),
  /** Where Temporal's runtime serves Prometheus metrics (merged into the daemon's /metrics). */
  SLUICE_TEMPORAL_METRICS_PORT: port.default(9464),
  /** First fallback poll of a webhook wait, ms. */
  SLUICE_WEBHOOK_FALLBACK_MS: z.coerce
    .number({ error: 'must be a number' })
    .int()
    .min(100)
    .max(86_400_000)
    .default(30_000),
  /**
   * Multiplies the client's rate budget (the spec's base limits, e.g. `/run` 1,000 per 10 s per
   * endpoint): above 1 when the endpoint's dynamic limit is known to be higher. Unset, each daemon
   * takes 1 / (live daemons on the task queue) of the base limits (see worker/rate-share.ts); set,
   * this fixed scale applies and the daemons are not counted.
   * @default unset (the shared budget)
   */
  SLUICE_RATE_SCALE: z.coerce.number({ error: 'must be a number' }).positive().max(1000).optional(),
  /**
   * How often the daemon asks the running batches and scalers for their state, for the
   * `sluice_batch_*` and `sluice_scaler_*` series of /metrics, ms; 0: never (no such series).
   * @default 15000
   */
  SLUICE_METRICS_INTERVAL_MS: z.coerce
    .number({ error: 'must be a number' })
    .int()
    .min(0)
    .max(3_600_000)
    .default(15_000),
  /**
   * Batches with series at most (the rest are not asked): bounds /metrics' cardinality.
   * @default 200
   */
  SLUICE_METRICS_MAX_BATCHES: z.coerce.number({ error: 'must be a number' }).int().min(1).max(10_000).default(200),
  /**
   * How long an ended batch keeps its series (its final counts), ms.
   * @default 600000 (10 min)
   */
  SLUICE_METRICS_RETENTION_MS: z.coerce
    .number({ error: 'must be a number' })
    .int()
    .min(0)
    .max(86_400_000)
    .default(600_000),
  /** OpenTelemetry's standard variables: traces go to this collector (OTLP/HTTP), `<it>/v1/traces`. @default unset (no tracing) */
  OTEL_EXPORTER_OTLP_ENDPOINT: url.optional(),
  /** The full URL of traces, before OTEL_EXPORTER_OTLP_ENDPOINT. @default unset */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url.optional(),
  SLUICE_MAX_CONCURRENT_ACTIVITIES: z.coerce
    .number({ error: 'must be a number' })
    .int()
    .min(1)
    .max(10_000)
    .default(200),
  /**
   * How far (%) the daemon's heap may grow past its live data before V8 collects (`worker/heap.ts`); 0 keeps V8's
   * own factor (up to 300 % for a busy process).
   * @default 50
   */
  SLUICE_HEAP_GROWING_PERCENT: z.coerce.number({ error: 'must be a number' }).int().min(0).max(1000).default(50),
  SLUICE_SHUTDOWN_GRACE_MS: z.coerce.number({ error: 'must be a number' }).int().min(0).max(3_600_000).default(10_000),
  /**
   * Serve Temporal's remote codec protocol (`POST /codec/encode`, `/codec/decode`) with the keys of
   * SLUICE_PAYLOAD_KEY_FILE, so the Temporal UI and CLI show payloads decrypted; needs a token.
   * @default false
   */
  SLUICE_CODEC_ENDPOINT: bool.default(false),
  /** The codec endpoint's bearer token (at least 32 characters), or a file (mode 0600) holding it. */
  SLUICE_CODEC_TOKEN: z.string().min(32, { error: 'must be at least 32 characters' }).optional(),
  SLUICE_CODEC_TOKEN_FILE: z.string().min(1).optional(),
  /** The origin of the Temporal UI allowed to call the codec endpoint from a browser (CORS), e.g. http://localhost:8233. */
  SLUICE_CODEC_CORS_ORIGIN: z.url({ error: 'must be an origin URL' }).optional(),
});

/** The codec endpoint needs the keys and a token: never served without authentication. */
const DaemonSettings = DaemonSchema.superRefine((c, ctx) => {
  if (!c.SLUICE_CODEC_ENDPOINT) return;
  if (!c.SLUICE_PAYLOAD_KEY_FILE)
    ctx.addIssue({
      code: 'custom',
      path: ['SLUICE_PAYLOAD_KEY_FILE'],
      message: 'is required with SLUICE_CODEC_ENDPOINT',
    });
  if (!c.SLUICE_CODEC_TOKEN && !c.SLUICE_CODEC_TOKEN_FILE)
    ctx.addIssue({
      code: 'custom',
      path: ['SLUICE_CODEC_TOKEN_FILE'],
      message: 'SLUICE_CODEC_TOKEN_FILE or SLUICE_CODEC_TOKEN is required with SLUICE_CODEC_ENDPOINT',
    });
});

/** The daemon's settings, its Temporal connection resolved. */
export type DaemonConfig = z.infer<typeof DaemonSchema> & TemporalSettings;

/**
 * Parses the daemon's environment; every missing or bad variable is named at once. The dev stack
 * passes `configFile: false` (its own Temporal server, whatever temporal.toml the user has).
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  o: TemporalProfileOptions = {},
): DaemonConfig {
  return parseSettings(DaemonSettings, env, o);
}
