import { z } from 'zod';
import { TASK_QUEUE } from '../contracts';
import { ConfigError } from './errors';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const port = z.coerce.number({ error: 'must be a port number from 0 to 65535' }).int({ error: 'must be a port number from 0 to 65535' }).min(0).max(65535);
const url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/**
 * The daemon's configuration, from environment variables (the standard `TEMPORAL_*` ones, so
 * a cluster or Temporal Cloud works unchanged, and `SLUICE_*`). Parsed once at start-up.
 */
const Schema = z.object({
  TEMPORAL_ADDRESS: z.string().regex(/^[^\s:]+:\d{1,5}$/, { error: 'must be host:port' }).default('localhost:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  /** TLS on the Temporal connection; defaults to on when an API key is set (Temporal Cloud). */
  TEMPORAL_TLS: bool.optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  SLUICE_TASK_QUEUE: z.string().min(1).default(TASK_QUEUE),
  /** Queue API base, e.g. https://api.runpod.ai/v2 or http://127.0.0.1:8080/v2. */
  SLUICE_QUEUE_URL: url,
  SLUICE_REST_URL: url.optional(),
  SLUICE_GRAPHQL_URL: url.optional(),
  SLUICE_API_KEY: z.string().min(1, { error: 'must not be empty' }),
  SLUICE_RESULTS_DIR: z.string().min(1).default('.data/results'),
  SLUICE_DAEMON_HOST: z.string().min(1).default('127.0.0.1'),
  SLUICE_DAEMON_PORT: port.default(8288),
  /** Base URL the service can reach the daemon's webhook receiver at; default http://HOST:PORT. */
  SLUICE_PUBLIC_URL: url.optional(),
  /** Secret of the webhook tokens; several daemons behind one public URL must share it. */
  SLUICE_WEBHOOK_SECRET: z.string().min(16, { error: 'must be at least 16 characters' }).optional(),
  /** Where Temporal's runtime serves Prometheus metrics (merged into the daemon's /metrics). */
  SLUICE_TEMPORAL_METRICS_PORT: port.default(9464),
  /** First fallback poll of a webhook wait, ms. */
  SLUICE_WEBHOOK_FALLBACK_MS: z.coerce.number({ error: 'must be a number' }).int().min(100).max(86_400_000).default(30_000),
  SLUICE_MAX_CONCURRENT_ACTIVITIES: z.coerce.number({ error: 'must be a number' }).int().min(1).max(10_000).default(200),
  SLUICE_SHUTDOWN_GRACE_MS: z.coerce.number({ error: 'must be a number' }).int().min(0).max(3_600_000).default(10_000),
});

export type DaemonConfig = z.infer<typeof Schema>;
export type DaemonEnv = Partial<Record<keyof DaemonConfig, string>>;

/** Parses the environment; the first bad variable stops start-up with a message naming it. */
export function loadConfig(env: Record<string, string | undefined> = process.env): DaemonConfig {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(Schema.shape)) {
    const v = env[key];
    if (v !== undefined && v !== '') picked[key] = v;
  }
  const r = Schema.safeParse(picked);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const variable = String(issue.path[0] ?? 'environment');
    const message = issue.code === 'invalid_type' && picked[variable] === undefined ? 'is required' : issue.message;
    throw new ConfigError(variable, message);
  }
  if (r.data.TEMPORAL_TLS_CLIENT_CERT_PATH && !r.data.TEMPORAL_TLS_CLIENT_KEY_PATH) {
    throw new ConfigError('TEMPORAL_TLS_CLIENT_KEY_PATH', 'is required with TEMPORAL_TLS_CLIENT_CERT_PATH');
  }
  return r.data;
}
