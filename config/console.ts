/**
 * The web console's settings (`sluice console`, and the daemon's console): where it listens, its
 * token, the Temporal UI it links to. Apart from the client variables: setting one never switches
 * the CLI's settings source to the environment.
 */
import { z } from 'zod';
import { ConfigError } from './errors';
import { readSecretFile } from './payload-keys';
import { parseSettings, url } from './settings';

/** A host the console may listen on without a token: the loopback interface only. */
export const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || /^127\./.test(host);

const port = z.coerce.number().int().min(0).max(65535);

export const CONSOLE_VARIABLES = {
  /** @default 127.0.0.1 (anything else needs a token) */
  SLUICE_CONSOLE_HOST: z.string().min(1).default('127.0.0.1'),
  /** `sluice console`'s port, and the daemon's console (0 there: none). @default 8289 */
  SLUICE_CONSOLE_PORT: port.default(8289),
  /** The token people sign in with (and `Authorization: Bearer` carries); at least 16 characters. */
  SLUICE_CONSOLE_TOKEN: z.string().min(16, { error: 'must be at least 16 characters' }).optional(),
  /** A file holding the token (mode 0600 or 0400), instead of SLUICE_CONSOLE_TOKEN. */
  SLUICE_CONSOLE_TOKEN_FILE: z.string().min(1).optional(),
  /** The Temporal Web UI that job links point at. @default the dev server's UI when `sluice dev` runs */
  SLUICE_TEMPORAL_UI_URL: url.optional(),
};

/** The console's settings in force. */
export interface ConsoleSettings {
  host: string;
  port: number;
  token?: string;
  temporalUiUrl?: string;
}

/** Parses the console's variables (and reads the token file); every problem is one ConfigError. */
export function loadConsoleSettings(env: Record<string, string | undefined> = process.env): ConsoleSettings {
  const picked = Object.fromEntries(Object.keys(CONSOLE_VARIABLES).map((k) => [k, env[k]]));
  const c = parseSettings(z.object(CONSOLE_VARIABLES), picked, { configFile: false });
  let token = c.SLUICE_CONSOLE_TOKEN;
  if (c.SLUICE_CONSOLE_TOKEN_FILE) {
    token = readSecretFile(c.SLUICE_CONSOLE_TOKEN_FILE, 'SLUICE_CONSOLE_TOKEN_FILE').trim();
    if (token.length < 16)
      throw new ConfigError([
        { variable: 'SLUICE_CONSOLE_TOKEN_FILE', message: 'the token must be at least 16 characters' },
      ]);
  }
  return {
    host: c.SLUICE_CONSOLE_HOST,
    port: c.SLUICE_CONSOLE_PORT,
    ...(token ? { token } : {}),
    ...(c.SLUICE_TEMPORAL_UI_URL ? { temporalUiUrl: c.SLUICE_TEMPORAL_UI_URL } : {}),
  };
}

/** Refuses a console bound off the loopback interface without a token. */
export function assertConsoleReachable(s: Pick<ConsoleSettings, 'host' | 'token'>): void {
  if (!isLoopback(s.host) && !s.token)
    throw new ConfigError([
      {
        variable: 'SLUICE_CONSOLE_TOKEN',
        message: `the console listens on ${s.host}, off this machine: set SLUICE_CONSOLE_TOKEN or SLUICE_CONSOLE_TOKEN_FILE (or keep 127.0.0.1 behind your own proxy)`,
      },
    ]);
}
