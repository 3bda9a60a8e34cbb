/** Options and argument parsers the commands share, and how an action hands its exit code back to main. */
import { InvalidArgumentError, Option } from 'commander';

/** The data dir when neither --data-dir nor SLUICE_DATA_DIR is given. */
export const DEFAULT_DATA_DIR = '.data';

/** Where a command's action leaves its exit code for {@link main}. */
export interface ExitState {
  code: number;
}

/** Wraps an action that returns an exit code. */
export function withExit<A extends unknown[]>(
  state: ExitState,
  fn: (...args: A) => Promise<number> | number,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    state.code = await fn(...args);
  };
}

/**
 * An action whose module loads only when its command runs (`--help` and the other commands never
 * load it): `lazyAction(() => import('./actions'), (m) => m.status)`.
 */
export function lazyAction<M, A extends unknown[]>(
  load: () => Promise<M>,
  pick: (m: M) => (...args: A) => Promise<number> | number,
): (...args: A) => Promise<number> {
  return async (...args: A) => pick(await load())(...args);
}

/** `--data-dir DIR` (env SLUICE_DATA_DIR): the root of the dev stack's state, read by every command. */
export const dataDirOption = (): Option =>
  new Option('--data-dir <dir>', 'root of the local state (dev.json, platform, Temporal, results)')
    .env('SLUICE_DATA_DIR')
    .default(DEFAULT_DATA_DIR);

export const jsonOption = (): Option => new Option('--json', 'print JSON for machines');

/** A port number, 0 to 65535 (0: any free port). */
export function parsePort(raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('must be an integer from 0 to 65535');
  return n;
}

/** A positive integer. */
export function parsePositiveInt(raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

/** `KEY=VALUE` options collected into a list (commander's argParser for a repeatable option). */
export function collectEnv(raw: string, prev: { key: string; value: string }[] = []): { key: string; value: string }[] {
  const eq = raw.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError('expected KEY=VALUE');
  return [...prev, { key: raw.slice(0, eq), value: raw.slice(eq + 1) }];
}

/** `--port`-like option with a default shown in help. */
export const portOption = (flags: string, description: string, fallback: number): Option =>
  new Option(flags, description).argParser(parsePort).default(fallback);

/** The exit codes, for every command's help. */
export const EXIT_CODES_HELP =
  'Exit codes: 0 completed, 1 failed / timed out / expired (or the command failed), 2 usage, 3 cancelled, 4 still running, 130 interrupted.';

export const parseSeconds = (raw: string): number => {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError('must be a positive number of seconds');
  return n;
};
/** `--interval S` of the commands that watch a batch or a pipeline. */
export const intervalOption = () =>
  new Option('--interval <s>', 'seconds between progress lines when not on a terminal (and JSON lines with --json)')
    .argParser(parseSeconds)
    .default(5);
