/** The settings of the daemon and the CLI: one zod schema over environment variables, shared by both. */
import { z } from 'zod';
import { TASK_QUEUE } from '../contracts';
import { parseS3Url } from '../results/store/open';
import { ConfigError } from './errors';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const port = z.coerce
  .number({ error: 'must be a port number from 0 to 65535' })
  .int({ error: 'must be a port number from 0 to 65535' })
  .min(0)
  .max(65535);
const url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** What is wrong with a results store URL (`s3://bucket/prefix`, `file:///dir` or a directory), if anything. */
export function resultsUrlProblem(value: string): string | undefined {
  if (value.startsWith('s3://')) {
    try {
      parseS3Url(value);
    } catch (err) {
      return `${(err as Error).message} (s3://bucket/prefix expected)`;
    }
    return undefined;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !value.startsWith('file://'))
    return 'must be s3://bucket/prefix, file:///dir or a directory path';
  return undefined;
}

const resultsUrl = z
  .string()
  .min(1)
  .superRefine((v, ctx) => {
    const problem = resultsUrlProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/**
 * What every client of Temporal and the service needs: the daemon and the CLI read the same
 * variables (the standard `TEMPORAL_*` ones, so a cluster or Temporal Cloud works unchanged).
 */
const connection = {
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^\s:]+:\d{1,5}$/, { error: 'must be host:port' })
    .default('localhost:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  /** TLS on the Temporal connection; defaults to on when an API key is set (Temporal Cloud). */
  TEMPORAL_TLS: bool.optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  SLUICE_TASK_QUEUE: z.string().min(1).default(TASK_QUEUE),
  /** Queue API base, e.g. https://api.runpod.ai/v2 or http://127.0.0.1:8080/v2. */
  SLUICE_QUEUE_URL: url.optional(),
  SLUICE_REST_URL: url.optional(),
  SLUICE_GRAPHQL_URL: url.optional(),
  SLUICE_API_KEY: z.string().min(1, { error: 'must not be empty' }).optional(),
  SLUICE_RESULTS_DIR: z.string().min(1).default('.data/results'),
  /**
   * The results store: `s3://bucket/prefix` (endpoint and credentials from the standard AWS
   * variables), `file:///dir` or a directory. @default SLUICE_RESULTS_DIR
   */
  SLUICE_RESULTS_URL: resultsUrl.optional(),
};

const ClientSchema = z.object(connection);

const DaemonSchema = z.object({
  ...connection,
  SLUICE_QUEUE_URL: url,
  SLUICE_API_KEY: z.string().min(1, { error: 'must not be empty' }),
  SLUICE_DAEMON_HOST: z.string().min(1).default('127.0.0.1'),
  SLUICE_DAEMON_PORT: port.default(8288),
  /** Base URL the service can reach the daemon's webhook receiver at; default http://HOST:PORT. */
  SLUICE_PUBLIC_URL: url.optional(),
  /** Secret of the webhook tokens; several daemons behind one public URL must share it. */
  SLUICE_WEBHOOK_SECRET: z.string().min(16, { error: 'must be at least 16 characters' }).optional(),
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
  SLUICE_MAX_CONCURRENT_ACTIVITIES: z.coerce
    .number({ error: 'must be a number' })
    .int()
    .min(1)
    .max(10_000)
    .default(200),
  SLUICE_SHUTDOWN_GRACE_MS: z.coerce.number({ error: 'must be a number' }).int().min(0).max(3_600_000).default(10_000),
});

export type DaemonConfig = z.infer<typeof DaemonSchema>;
export type DaemonEnv = Partial<Record<keyof DaemonConfig, string>>;
/** The settings of a client (the CLI): Temporal, the service and the results store. */
export type ClientConfig = z.infer<typeof ClientSchema>;
export type ClientSettingName = keyof ClientConfig;

/** The variables a client reads, in the order help and `sluice config` list them. */
export const CLIENT_SETTINGS = Object.keys(connection) as ClientSettingName[];

/** Variables whose values are never printed whole. */
export const SECRET_SETTINGS: ReadonlySet<string> = new Set([
  'TEMPORAL_API_KEY',
  'SLUICE_API_KEY',
  'SLUICE_WEBHOOK_SECRET',
]);

/** `****` and the last four characters of a secret (nothing of a short one). */
export function maskSecret(value: string): string {
  return value.length >= 12 ? `****${value.slice(-4)}` : '****';
}

function parse<S extends z.ZodObject>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const v = env[key];
    if (v !== undefined && v !== '') picked[key] = v;
  }
  const r = schema.safeParse(picked);
  const issues = r.success
    ? []
    : r.error.issues.map((issue) => {
        const variable = String(issue.path[0] ?? 'environment');
        return {
          variable,
          message: issue.code === 'invalid_type' && picked[variable] === undefined ? 'is required' : issue.message,
        };
      });
  if (picked.TEMPORAL_TLS_CLIENT_CERT_PATH && !picked.TEMPORAL_TLS_CLIENT_KEY_PATH) {
    issues.push({
      variable: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
      message: 'is required with TEMPORAL_TLS_CLIENT_CERT_PATH',
    });
  }
  if (issues.length > 0 || !r.success) throw new ConfigError(issues);
  return r.data;
}

/** The results store a configuration names: SLUICE_RESULTS_URL, else SLUICE_RESULTS_DIR. */
export const resultsUrlOf = (c: Pick<ClientConfig, 'SLUICE_RESULTS_URL' | 'SLUICE_RESULTS_DIR'>): string =>
  c.SLUICE_RESULTS_URL ?? c.SLUICE_RESULTS_DIR;

/** Parses the daemon's environment; every missing or bad variable is named at once. */
export function loadConfig(env: Record<string, string | undefined> = process.env): DaemonConfig {
  return parse(DaemonSchema, env);
}

/** Parses a client's settings (no service URL or key required); every bad variable is named at once. */
export function loadClientConfig(env: Record<string, string | undefined> = process.env): ClientConfig {
  return parse(ClientSchema, env);
}
