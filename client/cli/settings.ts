/**
 * Where the CLI's settings come from — the environment, or else the state `sluice dev` left in
 * the data dir, or else the defaults — one source as a whole, never mixed value by value.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  CLIENT_SETTINGS,
  SECRET_SETTINGS,
  loadClientConfig,
  maskSecret,
  type ClientConfig,
  type ClientSettingName,
} from '../../config/settings';

/** What `sluice dev` leaves (`<data dir>/dev.json`) for the other commands, so they work without any configuration. */
export interface DevState {
  temporalAddress: string;
  namespace: string;
  uiUrl?: string;
  platformUrl: string;
  apiKey: string;
  daemonUrl: string;
  resultsDir: string;
  taskQueue: string;
}

export const devStateFile = (dataDir: string): string => join(resolve(dataDir), 'dev.json');

/** Writes dev.json, readable by its owner only: it holds the API key. */
export function writeDevState(state: DevState, file: string): void {
  writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
}

export function readDevState(file: string): DevState | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DevState) : undefined;
}

/** The dev stack's state as the variables it stands for. */
function devVariables(d: DevState): Partial<Record<ClientSettingName, string>> {
  return {
    TEMPORAL_ADDRESS: d.temporalAddress,
    TEMPORAL_NAMESPACE: d.namespace,
    SLUICE_TASK_QUEUE: d.taskQueue,
    SLUICE_QUEUE_URL: `${d.platformUrl}/v2`,
    SLUICE_REST_URL: `${d.platformUrl}/v1`,
    SLUICE_GRAPHQL_URL: `${d.platformUrl}/graphql`,
    SLUICE_API_KEY: d.apiKey,
    SLUICE_RESULTS_DIR: d.resultsDir,
  };
}

/** The settings in force and where each came from. */
export interface CliSettings {
  config: ClientConfig;
  /** Which source won: every value comes from it or is a default. */
  source: 'environment' | 'dev stack' | 'defaults';
  dataDir: string;
  devStateFile: string;
  /** The client variables set in the environment (they make it the source). */
  environment: ClientSettingName[];
  /** Per setting: `environment`, `dev stack`, `temporal.toml` (a profile the environment named), `default` or `unset`. */
  origins: Record<ClientSettingName, 'environment' | 'dev stack' | 'temporal.toml' | 'default' | 'unset'>;
}

/**
 * Resolves the settings: any client variable set in the environment makes the environment the
 * source (the dev state is then ignored entirely); otherwise `<dataDir>/dev.json`, if `sluice dev`
 * wrote one. Bad values throw a ConfigError naming every one.
 */
export function resolveSettings(dataDir: string, env: NodeJS.ProcessEnv = process.env): CliSettings {
  const file = devStateFile(dataDir);
  const environment = CLIENT_SETTINGS.filter((k) => env[k] !== undefined && env[k] !== '');
  const dev = environment.length === 0 ? readDevState(file) : undefined;
  const given: Partial<Record<ClientSettingName, string>> = environment.length
    ? Object.fromEntries(environment.map((k) => [k, env[k]]))
    : dev
      ? devVariables(dev)
      : {};
  const source = environment.length ? 'environment' : dev ? 'dev stack' : 'defaults';
  const resultsDir = { SLUICE_RESULTS_DIR: given.SLUICE_RESULTS_DIR ?? join(resolve(dataDir), 'results') };
  // The environment, like Temporal's tools, includes the temporal.toml it names (or the default
  // one); the dev stack's state and the defaults stand for the whole Temporal connection.
  const config =
    source === 'environment'
      ? loadClientConfig({ ...env, ...resultsDir })
      : loadClientConfig({ ...given, ...resultsDir }, { configFile: false });
  const fromFile = new Set<string>(config.temporal.fromFile);
  const origins = Object.fromEntries(
    CLIENT_SETTINGS.map((k) => [
      k,
      given[k] !== undefined
        ? source === 'environment'
          ? 'environment'
          : 'dev stack'
        : fromFile.has(k)
          ? 'temporal.toml'
          : config[k] !== undefined
            ? 'default'
            : 'unset',
    ]),
  ) as CliSettings['origins'];
  return { config, source, dataDir: resolve(dataDir), devStateFile: file, environment, origins };
}

/** One line on where the settings came from, for messages and `sluice config`. */
export function describeSource(s: CliSettings): string {
  if (s.source === 'environment') {
    return `settings from the environment (${s.environment.join(', ')} set)${existsSync(s.devStateFile) ? `; the dev stack's ${s.devStateFile} is not used` : ''}`;
  }
  return s.source === 'dev stack'
    ? `settings from the dev stack: ${s.devStateFile}`
    : `default settings (no client variable set, no ${s.devStateFile})`;
}

/** The settings as `sluice config --json` prints them, secrets masked. */
export function settingsReport(s: CliSettings) {
  return {
    source: s.source,
    dataDir: s.dataDir,
    devStateFile: s.devStateFile,
    settings: Object.fromEntries(
      CLIENT_SETTINGS.map((k) => {
        const v = s.config[k];
        const value = v === undefined ? null : SECRET_SETTINGS.has(k) ? maskSecret(String(v)) : v;
        return [k, { value, from: s.origins[k] }];
      }),
    ),
  };
}
