import { request } from 'undici';

/**
 * Resolves an endpoint given by name or id: names are looked up with GraphQL
 * `myself { endpoints { id name } }`; anything not found there is taken as an id.
 */
export async function resolveEndpoint(nameOrId: string, graphqlUrl: string | undefined, apiKey: string | undefined): Promise<string> {
  if (!graphqlUrl || !apiKey) return nameOrId;
  try {
    const res = await request(`${graphqlUrl}?api_key=${encodeURIComponent(apiKey)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query { myself { endpoints { id name } } }' }),
      headersTimeout: 5000,
      bodyTimeout: 5000,
    });
    const body = (await res.body.json()) as { data?: { myself?: { endpoints?: { id: string; name: string }[] } } };
    const list = body.data?.myself?.endpoints ?? [];
    return list.find((e) => e.id === nameOrId)?.id ?? list.find((e) => e.name === nameOrId)?.id ?? nameOrId;
  } catch {
    return nameOrId;
  }
}
