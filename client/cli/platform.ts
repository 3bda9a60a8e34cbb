import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { openUsers, startPlatform, type Platform } from '../../platform';
import { UsageError } from './errors';

const DEFAULT_DATA_DIR = join('.data', 'platform');

/** Parses `--port`; a bad value is a usage error, not a crash. */
export function parsePort(raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, got "${raw}"`);
  return n;
}

/** `sluice platform ...` */
export async function platformCommand(argv: string[]): Promise<number> {
  if (argv[0] === 'users') return usersCommand(argv.slice(1));
  const { values } = parseArgs({
    args: argv,
    options: { port: { type: 'string' }, 'data-dir': { type: 'string' }, 'api-key': { type: 'string' }, host: { type: 'string' } },
  });
  const platform = await startPlatform({
    port: parsePort(values.port, 8080),
    dataDir: values['data-dir'] ?? DEFAULT_DATA_DIR,
    ...(values['api-key'] ? { apiKey: values['api-key'] } : {}),
    ...(values.host ? { host: values.host } : {}),
  });
  printBanner(platform);
  await untilSignal();
  await platform.close();
  return 0;
}

/** What a person needs to use the platform: URLs, key, example endpoints. */
export function printBanner(p: Platform): void {
  const lines = [
    `sluice platform ready`,
    `  queue API   ${p.url}/v2/{endpoint_id}/run`,
    `  REST        ${p.url}/v1`,
    `  GraphQL     ${p.url}/graphql?api_key=...`,
    `  API key     ${p.apiKey}`,
    `  endpoints   ${Object.entries(p.examples).map(([name, e]) => `${name}=${e.id}`).join('  ')}`,
  ];
  console.log(lines.join('\n'));
}

/** Resolves on the first SIGINT or SIGTERM. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (sig: NodeJS.Signals): void => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(sig);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

function usersCommand(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { 'data-dir': { type: 'string' }, json: { type: 'boolean' } },
  });
  const [verb, name] = positionals;
  if (verb !== 'add' || !name) throw new UsageError('usage: sluice platform users add NAME [--data-dir DIR] [--json]');
  const users = openUsers(resolve(values['data-dir'] ?? DEFAULT_DATA_DIR));
  try {
    const user = users.add(name);
    if (values.json) console.log(JSON.stringify({ id: user.id, name: user.name, apiKey: user.apiKey }));
    else console.log(user.apiKey);
    return 0;
  } catch (err) {
    throw new UsageError((err as Error).message);
  } finally {
    users.close();
  }
}
