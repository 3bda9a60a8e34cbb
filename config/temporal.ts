/**
 * The Temporal connection, read as Temporal's own tools read it (@temporalio/envconfig): a profile
 * of a temporal.toml (TEMPORAL_CONFIG_FILE, else the default location such as
 * ~/.config/temporalio/temporal.toml; profile TEMPORAL_PROFILE, else `default`), under the
 * TEMPORAL_* variables (address, namespace, API key, TLS with a private CA or client certificates,
 * TEMPORAL_GRPC_META_* headers). Shared by the daemon's connections and the CLI's.
 */
import { existsSync } from 'node:fs';
import { loadClientConfigProfile, toClientOptions, type ClientConfigProfile } from '@temporalio/envconfig';
import { type ConfigIssue } from './errors';

/** Where Temporal is when nothing names it (the dev server's defaults). */
export const TEMPORAL_DEFAULTS = { address: 'localhost:7233', namespace: 'default' } as const;

/** Options of {@link temporalProfile}. */
export interface TemporalProfileOptions {
  /**
   * Read a temporal.toml. Off where another source stands for the whole connection (the dev
   * stack's own Temporal server), so a profile meant for another cluster is not mixed in.
   * @default true
   */
  configFile?: boolean;
}

/** The connection in force: the profile merged with the variables, then the defaults. */
export interface TemporalProfile extends ClientConfigProfile {
  address: string;
  namespace: string;
  /** The variables whose value came from the temporal.toml profile (none set them). */
  fromFile: ('TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE' | 'TEMPORAL_API_KEY')[];
}

const HOST_PORT = /^[^\s:]+:\d{1,5}$/;

/**
 * Resolves the connection from `env` (empty values count as unset); every problem is returned as
 * an issue naming the variable, none thrown. Certificates are read when connecting, not here.
 */
export function temporalProfile(
  env: Record<string, string | undefined>,
  o: TemporalProfileOptions = {},
): { profile: TemporalProfile; issues: ConfigIssue[] } {
  const set = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => !!e[1]));
  const issues: ConfigIssue[] = [];
  const useFile = o.configFile ?? true;
  if (useFile && set.TEMPORAL_CONFIG_FILE && !existsSync(set.TEMPORAL_CONFIG_FILE))
    issues.push({ variable: 'TEMPORAL_CONFIG_FILE', message: `no such file: ${set.TEMPORAL_CONFIG_FILE}` });
  let loaded: ClientConfigProfile = {};
  try {
    loaded = loadClientConfigProfile({ overrideEnvVars: set, disableFile: !useFile });
  } catch (err) {
    const variable = set.TEMPORAL_PROFILE ? 'TEMPORAL_PROFILE' : 'TEMPORAL_CONFIG_FILE';
    issues.push({ variable, message: `temporal.toml: ${(err as Error).message}` });
  }
  const fromFile = (['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_API_KEY'] as const).filter(
    (k, i) => !set[k] && [loaded.address, loaded.namespace, loaded.apiKey][i] !== undefined,
  );
  const profile: TemporalProfile = {
    ...loaded,
    address: loaded.address ?? TEMPORAL_DEFAULTS.address,
    namespace: loaded.namespace ?? TEMPORAL_DEFAULTS.namespace,
    fromFile,
  };
  // A bad TEMPORAL_ADDRESS is the schema's to report; one from the file is reported here.
  if (fromFile.includes('TEMPORAL_ADDRESS') && !HOST_PORT.test(profile.address))
    issues.push({ variable: 'TEMPORAL_PROFILE', message: `temporal.toml: address must be host:port` });
  issues.push(...tlsIssues(profile, set));
  return { profile, issues };
}

/** A client certificate without its key, and certificate files that do not exist. */
function tlsIssues(profile: TemporalProfile, set: Record<string, string>): ConfigIssue[] {
  const tls = profile.tls;
  if (!tls || tls.disabled) return [];
  if (tls.clientCert && !tls.clientKey)
    return [{ variable: 'TEMPORAL_TLS_CLIENT_KEY_PATH', message: 'is required with TEMPORAL_TLS_CLIENT_CERT_PATH' }];
  const issues: ConfigIssue[] = [];
  const files = [
    ['TEMPORAL_TLS_CLIENT_CERT_PATH', tls.clientCert],
    ['TEMPORAL_TLS_CLIENT_KEY_PATH', tls.clientKey],
    ['TEMPORAL_TLS_SERVER_CA_CERT_PATH', tls.serverCACert],
  ] as const;
  for (const [variable, source] of files) {
    if (source && 'path' in source && !existsSync(source.path))
      issues.push({
        variable: set[variable] ? variable : 'TEMPORAL_PROFILE',
        message: `no such file: ${source.path}`,
      });
  }
  return issues;
}

/**
 * What `Connection.connect` (gRPC-js) and `NativeConnection.connect` (the worker's) take: TLS on
 * with an API key, a client certificate or a CA unless TEMPORAL_TLS=false, as in Temporal's tools.
 * Reads the certificate files.
 */
export function temporalConnectOptions(p: TemporalProfile) {
  const { connectionOptions: c } = toClientOptions(p);
  return {
    address: p.address,
    ...(c.tls !== undefined ? { tls: c.tls } : {}),
    ...(c.apiKey ? { apiKey: c.apiKey } : {}),
    ...(c.metadata ? { metadata: c.metadata } : {}),
  };
}
