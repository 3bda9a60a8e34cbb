/** The service's control-plane clients (GraphQL, REST) for `sluice endpoints` and `sluice templates`, and the GraphQL client of an endpoint's lookup, from the resolved settings. */
import type { GraphqlClient, RestClient } from '../../platform-api';
import type { ClientConfig } from '../../config/settings';
import { UsageError } from './errors';
import type { CliSettings } from './settings';

/** The clients' code and the settings, loaded when a command connects (its definition never needs them). */
const load = () => Promise.all([import('../../platform-api'), import('./settings')]);

/** What a control-plane command works with; `close()` releases both clients. */
export interface ServiceContext {
  settings: CliSettings;
  graphql: GraphqlClient;
  rest: RestClient;
  close(): Promise<void>;
}

/** Connects with the settings of `dataDir`; without the GraphQL and REST URLs and a key, a {@link UsageError} says which source lacks them. */
export async function connectService(dataDir: string, given?: CliSettings): Promise<ServiceContext> {
  const [{ GraphqlClient, RestClient }, { describeSource, resolveSettings }] = await load();
  const settings = given ?? resolveSettings(dataDir);
  const c = settings.config;
  if (!c.SLUICE_GRAPHQL_URL || !c.SLUICE_REST_URL || !c.SLUICE_API_KEY) {
    throw new UsageError(
      `no service to talk to: SLUICE_GRAPHQL_URL, SLUICE_REST_URL and SLUICE_API_KEY are needed (${describeSource(settings)}); run \`sluice dev\` and leave the variables unset, or set them for the service`,
    );
  }
  const graphql = new GraphqlClient(graphqlOptionsOf(c)!);
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
  const s = await connectService(dataDir);
  const [{ BadRequestError, NotFoundError }] = await load();
  try {
    return await fn(s);
  } catch (err) {
    if (err instanceof BadRequestError || err instanceof NotFoundError) throw new UsageError(err.message);
    throw err;
  } finally {
    await s.close();
  }
}

/** The GraphQL client's options from the settings (URL, key, one retry); undefined without a URL and key. */
export function graphqlOptionsOf(c: ClientConfig) {
  if (!c.SLUICE_GRAPHQL_URL || !c.SLUICE_API_KEY) return undefined;
  return { url: c.SLUICE_GRAPHQL_URL, apiKey: c.SLUICE_API_KEY, retry: { maxAttempts: 2 } };
}

/** The GraphQL client of a lookup alone: over Node's own http (npm's undici not loaded); undefined without a URL and key. */
export async function lookupClient(c: ClientConfig): Promise<GraphqlClient | undefined> {
  const o = graphqlOptionsOf(c);
  return o && new (await import('../../platform-api/graphql-client')).GraphqlClient({ ...o, nodeHttp: true });
}
