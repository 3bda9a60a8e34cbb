/** The endpoint a command names (`--endpoint ID|NAME`, `<endpoint>`) to its id: one lookup for the job, batch, scaler and endpoints commands. */
import { type GraphqlClient } from '../../platform-api';
import { EndpointNotFoundError, resolveEndpoint } from '../endpoints';
import { type CliContext, type CliUse } from './context';
import { UsageError } from './errors';
import { describeSource, type CliSettings } from './settings';

/** Names can be looked up only with the service's GraphQL URL and key: say so before anything connects. */
export function assertLookup(settings: CliSettings, nameOrId: string): void {
  if (settings.config.SLUICE_GRAPHQL_URL && settings.config.SLUICE_API_KEY) return;
  throw new UsageError(
    `cannot look up endpoint ${nameOrId}: no GraphQL URL and API key (${describeSource(settings)}); set SLUICE_GRAPHQL_URL and SLUICE_API_KEY, or run \`sluice dev\` and leave the variables unset`,
  );
}

/** The endpoint's id from the service; an unknown one is a usage error naming those that exist. */
export async function lookUpEndpoint(graphql: GraphqlClient, nameOrId: string): Promise<string> {
  return resolveEndpoint(nameOrId, graphql).catch((err: unknown) => {
    throw err instanceof EndpointNotFoundError ? new UsageError(err.message) : err;
  });
}

/**
 * The endpoint's id, checked against the service before any workflow starts. Without a GraphQL URL,
 * or for an endpoint the service no longer has, the argument itself when `known` says it is one
 * (an endpoint deleted while its scaler or schedules remain).
 */
export async function endpointArg(
  cli: Pick<CliContext, 'settings' | 'graphql'>,
  nameOrId: string,
  known?: (id: string) => Promise<boolean>,
): Promise<string> {
  const isKnown = async (): Promise<boolean> => (known ? known(nameOrId) : false);
  if (!cli.graphql) {
    if (await isKnown()) return nameOrId;
    assertLookup(cli.settings, nameOrId);
  }
  try {
    return await resolveEndpoint(nameOrId, cli.graphql!);
  } catch (err) {
    if (!(err instanceof EndpointNotFoundError)) throw err;
    if (await isKnown()) return nameOrId;
    throw new UsageError(err.message);
  }
}

/**
 * Connects with the clients of `uses` and the service's, and resolves the endpoint a command names
 * ({@link endpointArg}) while Temporal connects: the lookup's round trip overlaps the connect.
 */
export async function connectForEndpoint<U extends CliUse>(
  dataDir: string,
  uses: readonly U[],
  settings: CliSettings,
  nameOrId: string,
): Promise<{ cli: CliContext<U | 'lookup'>; endpointId: string }> {
  let lookup: Promise<string> | undefined;
  const { connectCli } = await import('./context');
  const cli = await connectCli(dataDir, [...uses, 'lookup'], settings, (service) => {
    lookup = endpointArg(service, nameOrId);
    lookup.catch(() => undefined); // awaited below, once connected (or dropped with a failed connect)
  });
  try {
    return { cli, endpointId: await lookup! };
  } catch (err) {
    await cli.close();
    throw err;
  }
}
