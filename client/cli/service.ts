/** The service's control-plane clients (GraphQL, REST) for `sluice endpoints` and `sluice templates`, from the resolved settings. */
import { InvalidArgumentError } from 'commander';
import { BadRequestError, GraphqlClient, NotFoundError, RestClient } from '../../platform-api';
import { UsageError } from './errors';
import { describeSource, resolveSettings, type CliSettings } from './settings';

/** What a control-plane command works with; `close()` releases both clients. */
export interface ServiceContext {
  settings: CliSettings;
  graphql: GraphqlClient;
  rest: RestClient;
  close(): Promise<void>;
}

/** Connects with the settings of `dataDir`; without the GraphQL and REST URLs and a key, a {@link UsageError} says which source lacks them. */
export function connectService(dataDir: string, settings: CliSettings = resolveSettings(dataDir)): ServiceContext {
  const c = settings.config;
  if (!c.SLUICE_GRAPHQL_URL || !c.SLUICE_REST_URL || !c.SLUICE_API_KEY) {
    throw new UsageError(
      `no service to talk to: SLUICE_GRAPHQL_URL, SLUICE_REST_URL and SLUICE_API_KEY are needed (${describeSource(settings)}); run \`sluice dev\` and leave the variables unset, or set them for the service`,
    );
  }
  const graphql = new GraphqlClient({ url: c.SLUICE_GRAPHQL_URL, apiKey: c.SLUICE_API_KEY, retry: { maxAttempts: 2 } });
  const rest = new RestClient({ baseUrl: c.SLUICE_REST_URL, apiKey: c.SLUICE_API_KEY, retry: { maxAttempts: 2 } });
  return {
    settings,
    graphql,
    rest,
    close: async () => {
      await graphql.close();
      await rest.close();
    },
  };
}

/** Runs `fn` with a connected context and closes it; the service refusing the input (bad request, unknown id) is a usage error. */
export async function withService<T>(dataDir: string, fn: (s: ServiceContext) => Promise<T>): Promise<T> {
  const s = connectService(dataDir);
  try {
    return await fn(s);
  } catch (err) {
    if (err instanceof BadRequestError || err instanceof NotFoundError) throw new UsageError(err.message);
    throw err;
  } finally {
    await s.close();
  }
}

/** `KEY=VALUE` options collected into a list (commander's argParser for a repeatable option). */
export function collectEnv(raw: string, prev: { key: string; value: string }[] = []): { key: string; value: string }[] {
  const eq = raw.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError('expected KEY=VALUE');
  return [...prev, { key: raw.slice(0, eq), value: raw.slice(eq + 1) }];
}

/** Prints rows as aligned columns (the first row is the header). */
export function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  for (const r of rows) console.log(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  '));
}
