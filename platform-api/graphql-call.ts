/**
 * One GraphQL call of the typed client: `POST {query, variables}`, retried when `idempotent` (queries;
 * a mutation is never repeated), GraphQL errors (in a 200 or a 400/401 envelope) thrown as typed
 * errors, and the answer's `data` validated against the operation's schema.
 */
import { type z } from 'zod';
import { InvalidResponseError, isPlatformApiError, type PlatformApiErrorContext } from './errors';
import { Envelope, errorOf } from './graphql-errors';
import { type GraphqlOperation } from './graphql-shapes';
import { type HttpCore } from './http';
import { withRetry, type RetryOptions } from './retry';
import { parseResponse } from './validate';

/** What one call sends and how: its operation (for errors), query, variables, whether it may be repeated. */
export interface GraphqlRequest {
  operation: GraphqlOperation;
  query: string;
  variables: Record<string, unknown>;
  idempotent: boolean;
  retry?: Partial<RetryOptions> | undefined;
}

/** Sends `r` over `http`; resolves with `pick` of the answer's `data` once `schema` accepts it. */
export async function graphqlCall<S extends z.ZodType, R>(
  http: HttpCore,
  r: GraphqlRequest,
  schema: S,
  pick: (data: z.output<S>) => R,
): Promise<R> {
  const { operation, query, variables, idempotent } = r;
  const ctx: PlatformApiErrorContext = { operation };
  const body = JSON.stringify({ query, variables });
  const send = async () => {
    try {
      return await http.send({ method: 'POST', path: '', body, ctx });
    } catch (e) {
      // 400/401 answers carry a GraphQL envelope: surface its message and code.
      const env = isPlatformApiError(e) ? Envelope.safeParse(e.body) : undefined;
      if (isPlatformApiError(e) && env?.success && env.data.errors?.length)
        throw errorOf(env.data.errors, { ...ctx, status: e.status });
      throw e;
    }
  };
  const res = await withRetry(send, { idempotent, retry: r.retry });
  const envelope = parseResponse(Envelope, res, ctx);
  if (envelope.errors && envelope.errors.length > 0) throw errorOf(envelope.errors, { ...ctx, status: res.status });
  const data = schema.safeParse(envelope.data);
  if (!data.success) {
    throw new InvalidResponseError(
      `${operation}: answer does not match the contract: ${data.error.issues[0]!.message}`,
      { ...ctx, status: res.status, body: envelope.data },
    );
  }
  return pick(data.data);
}
