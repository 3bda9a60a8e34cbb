/** Finding an endpoint by name or id through the service's GraphQL API (`myself { endpoints }`). */
import { FailureType } from '../contracts/names';
import { type GraphqlClient } from '../platform-api';

/** An endpoint given by name or id that the service does not have; lists the ones it has. */
export class EndpointNotFoundError extends Error {
  readonly code = FailureType.ENDPOINT_NOT_FOUND;
  constructor(
    readonly nameOrId: string,
    readonly known: { id: string; name: string }[],
  ) {
    const list = known.length ? known.map((e) => `${e.name} (${e.id})`).join(', ') : 'none';
    super(`endpoint ${nameOrId} not found; the endpoints that exist: ${list}`);
    this.name = 'EndpointNotFoundError';
  }
}

/**
 * Resolves an endpoint given by id or name to its id. Ids win over names; an unknown endpoint
 * is an {@link EndpointNotFoundError} naming those that exist.
 */
export async function resolveEndpoint(
  nameOrId: string,
  graphql: Pick<GraphqlClient, 'listEndpoints'>,
): Promise<string> {
  const list = (await graphql.listEndpoints()).endpoints.map((e) => ({ id: e.id, name: e.name }));
  const found = list.find((e) => e.id === nameOrId) ?? list.find((e) => e.name === nameOrId);
  if (!found) throw new EndpointNotFoundError(nameOrId, list);
  return found.id;
}
