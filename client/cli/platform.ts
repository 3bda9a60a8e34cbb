/** `sluice platform` (the local serverless platform alone) and `sluice platform users add`. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { PLATFORM_COMMAND } from './groups';
import type { Faults, Platform } from '../../platform';
import { UsageError } from './errors';
import { dataDirOption, jsonOption, portOption, withExit, type ExitState } from './options';
import { flushCodeCache } from '../../common/code-cache';
import { assertPortsFree } from './ports';

/** The platform's code, loaded when a command needs it (help and the other commands never do). */
const loadPlatform = () => import('../../platform');

/** The platform's state within the data dir (as `sluice dev` keeps it). */
const platformDir = (dataDir: string): string => join(resolve(dataDir), 'platform');

/** What a person needs to use the platform: URLs, key, example endpoints. */
async function printBanner(p: Platform): Promise<void> {
  const lines = [
    `sluice platform ready`,
    `  queue API   ${p.url}/v2/{endpoint_id}/run`,
    `  REST        ${p.url}/v1`,
    `  GraphQL     ${p.url}/graphql?api_key=...`,
    `  API key     ${keyLine(p)}`,
    `  endpoints   ${Object.entries(p.examples)
      .map(([name, e]) => `${name}=${e.id}`)
      .join('  ')}`,
    ...(await faultsBanner(p)),
  ];
  console.log(lines.join('\n'));
}

/** The first user's key as a banner shows it: in clear only when this start made it, else where it is kept. */
export function keyLine(p: Platform): string {
  return p.apiKeyCreated ? `${p.apiKey}  (shown once; kept in ${p.apiKeyFile}, mode 0600)` : `in ${p.apiKeyFile}`;
}

/** `--api-key` and `--api-key-file` of the commands that start a platform. */
export function apiKeyOptions(what: string): Option[] {
  return [
    new Option(
      '--api-key <key>',
      `${what}; visible to other users in \`ps\`: prefer --api-key-file or SLUICE_API_KEY; default: generated once and kept`,
    ),
    new Option('--api-key-file <path>', `a file holding ${what} (first line)`).conflicts('apiKey'),
  ];
}

/** The key given by `--api-key` or `--api-key-file`, if any (SLUICE_API_KEY is read by the platform itself). */
export function givenApiKey(o: { apiKey?: string; apiKeyFile?: string }): string | undefined {
  if (o.apiKey) return o.apiKey;
  if (!o.apiKeyFile) return undefined;
  let text: string;
  try {
    text = readFileSync(o.apiKeyFile, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --api-key-file ${o.apiKeyFile}: ${(err as Error).message}`);
  }
  const key = text.split('\n')[0]!.trim();
  if (!key) throw new UsageError(`--api-key-file ${o.apiKeyFile} is empty`);
  return key;
}

/** The banner's line of the fault mode, when it is on. */
async function faultsBanner(p: Platform): Promise<string[]> {
  const on = p.faults && (await loadPlatform()).describeFaults(p.faults);
  return on ? [`  faults      ${on}  (docs/platform.md "Fault mode")`] : [];
}

/** The value of `--faults`: the spec as given, read by {@link readFaults} when the command runs. */
export type FaultsOption = string;

/** `--faults <spec>` of `sluice platform` and `sluice dev`: {@link readFaults} reads the spec, a bad part exits 2 naming it. */
export const faultsOption = (): Option =>
  new Option(
    '--faults <spec>',
    'fault mode: seeded misbehaviour of the queue API and webhooks, e.g. seed=7,429=0.05,502=0.05,reset-before=0.03,reset-after=0.05,delay=0.05:1000-4000,webhook-lost=0.08,webhook-duplicate=0.08,webhook-delay=0.08:500-3000,webhook-reset=0.04 (docs/platform.md)',
  );

/** The fault mode of `--faults <spec>` (none without it); a bad part is a usage error naming it. */
export async function readFaults(raw: FaultsOption | undefined): Promise<Faults | undefined> {
  if (raw === undefined) return undefined;
  const { parseFaultSpec, FaultSpecError } = await loadPlatform();
  try {
    return parseFaultSpec(raw);
  } catch (err) {
    if (err instanceof FaultSpecError)
      throw new UsageError(`option '--faults <spec>' argument '${raw}' is invalid. ${err.message}`);
    throw err;
  }
}

/** The signals that end a long-running command: Ctrl-C, `kill`, and the terminal closing (SIGHUP). */
const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

const dropWriteError = (): void => undefined;

/**
 * How long after the first stop signal another one is the same stop, ms: a terminal's Ctrl-C
 * reaches sluice twice under `npm start` (from the terminal, and forwarded by npm), and a
 * `pkill` may add its own.
 */
export const SAME_STOP_MS = 1000;

/**
 * Resolves on the first SIGINT, SIGTERM or SIGHUP. Another one within {@link SAME_STOP_MS} is the
 * same stop; a later one stops the process at once (exit 130: the supervisor and the reaper then
 * stop the Temporal server and the worker pods). Output that can no longer be written (the
 * reader of a pipe died with the same Ctrl-C, the terminal closed) is dropped from then on, so the
 * command still stops everything it started instead of dying of EPIPE.
 */
export function untilSignal(): Promise<NodeJS.Signals> {
  for (const stream of [process.stdout, process.stderr]) {
    stream.off('error', dropWriteError).on('error', dropWriteError);
  }
  return new Promise((resolve) => {
    let first: number | undefined;
    const on = (sig: NodeJS.Signals): void => {
      if (first === undefined) {
        first = Date.now();
        resolve(sig);
      } else if (Date.now() - first > SAME_STOP_MS) {
        console.error(`sluice: ${sig} again: stopping at once`);
        process.exit(130);
      }
    };
    for (const s of STOP_SIGNALS) process.on(s, on);
  });
}

async function platform(o: {
  port: number;
  host: string;
  dataDir: string;
  apiKey?: string;
  apiKeyFile?: string;
  faults?: FaultsOption;
}): Promise<number> {
  const faults = await readFaults(o.faults);
  const apiKey = givenApiKey(o);
  const { startPlatform } = await loadPlatform();
  await assertPortsFree([{ port: o.port, host: o.host, what: 'the platform', change: 'choose another with --port' }]);
  const p = await startPlatform({
    port: o.port,
    host: o.host,
    dataDir: platformDir(o.dataDir),
    ...(apiKey ? { apiKey } : {}),
    ...(faults ? { faults } : {}),
  });
  await printBanner(p);
  // What the start compiled is kept for the next start (bin/sluice.cjs).
  flushCodeCache();
  const unreadable = (await loadPlatform()).examplesUnreadable(p.pool.podUser);
  if (unreadable) console.error(`sluice platform: warning: ${unreadable}`);
  await untilSignal();
  await p.close();
  return 0;
}

/**
 * `--data-dir` wherever it was given: `sluice platform --data-dir X users add` and `sluice platform
 * users add --data-dir X` (which commander hands to the parent command) both mean X.
 */
function givenDataDir(cmd: Command): string {
  for (let c: Command | null = cmd; c; c = c.parent) {
    const source = c.getOptionValueSource('dataDir');
    if (source !== undefined && source !== 'default') return c.getOptionValue('dataDir') as string;
  }
  return cmd.getOptionValue('dataDir') as string;
}

async function addUser(name: string, o: { json?: boolean }, cmd: Command): Promise<number> {
  const { openUsers } = await loadPlatform();
  const users = openUsers(platformDir(givenDataDir(cmd)));
  try {
    const user = users.add(name);
    if (o.json) console.log(JSON.stringify({ id: user.id, name: user.name, apiKey: user.apiKey }));
    else console.log(user.apiKey);
    return 0;
  } catch (err) {
    throw new UsageError((err as Error).message);
  } finally {
    users.close();
  }
}

/** Registers `sluice platform` and `sluice platform users add`. */
export function registerPlatformCommands(program: Command, exit: ExitState): void {
  const cmd = program
    .command('platform')
    .summary(PLATFORM_COMMAND.summary)
    .description(
      'Runs the local RunPod-compatible platform, its state in <data-dir>/platform (the same place `sluice dev` keeps it). Ctrl-C stops it.',
    )
    .addOption(portOption('--port <n>', 'port to listen on (0: any free port)', 8080))
    .addOption(new Option('--host <host>', 'address to listen on').default('127.0.0.1'))
    .addOption(apiKeyOptions("the first user's API key")[0]!)
    .addOption(apiKeyOptions("the first user's API key")[1]!)
    .addOption(dataDirOption())
    .addOption(faultsOption())
    .addHelpText(
      'after',
      `
Examples:
  sluice platform --port 8080
  sluice platform --faults seed=7,429=0.05,reset-after=0.05,webhook-lost=0.08
  sluice platform --host 0.0.0.0 --data-dir /data --api-key-file /run/secrets/sluice-key
  sluice platform users add alice

The database keeps only a keyed hash of each API key: a key is shown once, when it is made
(users add prints it; the first user's is printed at creation and kept in <data-dir>/platform/api-key, mode 0600).`,
    )
    .action(withExit(exit, platform));
  const users = cmd.command('users').summary("manage the platform's users");
  users
    .command('add')
    .summary('create a user and print its API key (shown this once: only its hash is stored)')
    .argument('<name>', "the user's name")
    .addOption(jsonOption())
    .addOption(dataDirOption())
    .addHelpText('after', '\nExample:\n  sluice platform users add alice --json')
    .action(withExit(exit, addUser));
}
