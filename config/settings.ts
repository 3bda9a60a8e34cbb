/**
 * The settings every client of Temporal and the service reads, the daemon and the CLI alike: one
 * zod schema over environment variables (the daemon's own variables extend it in worker/config.ts),
 * the Temporal connection resolved as Temporal's tools do (./temporal.ts), the results store's URL.
 */
import { z } from 'zod';
import { TASK_QUEUE } from '../contracts/names/common';
import { parseS3Url } from '../results/store/s3-url';
import { ConfigError, type ConfigIssue } from './errors';
import { temporalProfile, type TemporalProfile, type TemporalProfileOptions } from './temporal';

export const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
export const url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const path = z.string().min(1);

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
 * The client variables, in the order help and `sluice config` list them: the standard `TEMPORAL_*`
 * ones (a cluster, a private CA, Temporal Cloud or a temporal.toml profile work unchanged; their
 * defaults apply after the profile, in ./temporal.ts), then sluice's own.
 */
export const CLIENT_VARIABLES = {
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^\s:]+:\d{1,5}$/, { error: 'must be host:port' })
    .optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).optional(),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  /** A profile of the temporal.toml (Temporal's config file). @default default */
  TEMPORAL_PROFILE: z.string().min(1).optional(),
  /** The temporal.toml to read. @default the user's config dir: ~/.config/temporalio/temporal.toml */
  TEMPORAL_CONFIG_FILE: path.optional(),
  /** TLS on the Temporal connection; on with an API key, a client certificate or a CA (Temporal Cloud). */
  TEMPORAL_TLS: bool.optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: path.optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: path.optional(),
  /** The CA of a self-hosted server's certificate (PEM). */
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: path.optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  /** The certificates themselves (PEM) instead of their paths. */
  TEMPORAL_TLS_CLIENT_CERT_DATA: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_KEY_DATA: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: z.string().min(1).optional(),
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
  /**
   * A JSON file of payload keys (mode 0600 or 0400): workflow inputs, results, state and signals are
   * sealed with AES-256-GCM in Temporal's history (config/payload-keys.ts; docs/deployment.md).
   * @default unset (payloads in plain JSON)
   */
  SLUICE_PAYLOAD_KEY_FILE: path.optional(),
  /**
   * Where batches may read their input and write their output: comma-separated local directories
   * and `s3://bucket[/prefix]` entries; the results store is always allowed (results/batch/roots.ts).
   * @default the working directory
   */
  SLUICE_BATCH_ROOTS: z.string().min(1).optional(),
};

const ClientSchema = z.object(CLIENT_VARIABLES);

/** What every parsed configuration carries beside its variables: the Temporal connection in force. */
export interface TemporalSettings {
  /** The address and namespace in force (variable, else profile, else default). */
  TEMPORAL_ADDRESS: string;
  TEMPORAL_NAMESPACE: string;
  temporal: TemporalProfile;
}

/** The settings of a client (the CLI): Temporal, the service and the results store. */
export type ClientConfig = z.infer<typeof ClientSchema> & TemporalSettings;
export type ClientSettingName = keyof typeof CLIENT_VARIABLES;

/** The variables a client reads, in the order help and `sluice config` list them. */
export const CLIENT_SETTINGS = Object.keys(CLIENT_VARIABLES) as ClientSettingName[];

/** Variables whose values are never printed whole. */
export const SECRET_SETTINGS: ReadonlySet<string> = new Set([
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS_CLIENT_KEY_DATA',
  'SLUICE_API_KEY',
  'SLUICE_WEBHOOK_SECRET',
  'SLUICE_CODEC_TOKEN',
]);

/** `****` and the last four characters of a secret (nothing of a short one). */
export function maskSecret(value: string): string {
  return value.length >= 12 ? `****${value.slice(-4)}` : '****';
}

/**
 * Parses `env` with `schema` (a superset of the client variables) and resolves the Temporal
 * connection; every missing or bad variable is named at once in one ConfigError.
 */
export function parseSettings<S extends z.ZodObject>(
  schema: S,
  env: Record<string, string | undefined>,
  o: TemporalProfileOptions = {},
): z.infer<S> & TemporalSettings {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const v = env[key];
    if (v !== undefined && v !== '') picked[key] = v;
  }
  const r = schema.safeParse(picked);
  const issues: ConfigIssue[] = r.success
    ? []
    : r.error.issues.map((issue) => {
        const variable = String(issue.path[0] ?? 'environment');
        return {
          variable,
          message: issue.code === 'invalid_type' && picked[variable] === undefined ? 'is required' : issue.message,
        };
      });
  const { profile, issues: temporalIssues } = temporalProfile(env, o);
  issues.push(...temporalIssues);
  if (issues.length > 0 || !r.success) throw new ConfigError(issues);
  return {
    ...r.data,
    TEMPORAL_ADDRESS: profile.address,
    TEMPORAL_NAMESPACE: profile.namespace,
    ...(profile.apiKey !== undefined ? { TEMPORAL_API_KEY: profile.apiKey } : {}),
    temporal: profile,
  };
}

/** The results store a configuration names: SLUICE_RESULTS_URL, else SLUICE_RESULTS_DIR. */
export const resultsUrlOf = (c: Pick<ClientConfig, 'SLUICE_RESULTS_URL' | 'SLUICE_RESULTS_DIR'>): string =>
  c.SLUICE_RESULTS_URL ?? c.SLUICE_RESULTS_DIR;

/** Parses a client's settings (no service URL or key required); every bad variable is named at once. */
export function loadClientConfig(
  env: Record<string, string | undefined> = process.env,
  o: TemporalProfileOptions = {},
): ClientConfig {
  return parseSettings(ClientSchema, env, o);
}
