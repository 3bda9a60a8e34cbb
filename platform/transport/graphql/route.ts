/** The `/graphql` route: parse, validate and execute a request against the control-plane schema. */
import {
  execute,
  GraphQLError,
  parse,
  specifiedRules,
  validate as validateDocument,
  type DocumentNode,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import { z } from 'zod';
import { type ServerlessDiscount } from '../../../contracts';
import { isPlatformError } from '../../core/errors';
import { credential } from '../http/auth';
import { discardUnread, parseJson, readBody } from '../http/body';
import { sendJson } from '../http/respond';
import { type Ctx } from '../http/router';
import { type RouteGroup } from '../http/server';
import { type PlatformServices } from '../../services';
import { type User } from '../../control-plane/users';
import { type GqlContext } from './context';
import { envelopeError, formatExecutionError, formatValidationError, GraphqlRequestError } from './errors';
import { GRAPHQL_LIMITS, limitRules } from './limits';
import { buildControlPlaneSchema } from './schema';

/** Options of {@link graphqlRoutes}. */
export interface GraphqlOptions {
  /**
   * What `myself { serverlessDiscount }` returns: no discount, as for most users of the service.
   * @default null
   */
  serverlessDiscount?: ServerlessDiscount | null;
}

/** Largest GraphQL request body. */
export const GRAPHQL_BODY_LIMIT = 1024 * 1024;

const Request = z.object({
  query: z.string({ error: 'the body needs a "query" string' }),
  variables: z.record(z.string(), z.unknown()).nullable().optional(),
  operationName: z.string().nullable().optional(),
});

/** Runs `fn`; a platform error (too large, not JSON) becomes a request failure with code BAD_REQUEST. */
async function requestFailureOf<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isPlatformError(err))
      throw new GraphqlRequestError(err.httpStatus, [envelopeError(err.message, 'BAD_REQUEST')]);
    throw err;
  }
}

/**
 * The caller, by the key of `?api_key=` or `Authorization`, before a byte of the body is read: a
 * stranger's body is discarded (within LIMITS.overLimitDrainBytes, else the connection is closed)
 * when the 401 is answered.
 */
function callerOf(ctx: Ctx, s: PlatformServices): User {
  const key = ctx.query.get('api_key') ?? credential(ctx.req);
  const user = key ? s.users.byApiKey(key) : undefined;
  if (user) return user;
  const message = key ? 'invalid API key' : 'missing API key: add ?api_key=<key> or send "Authorization: Bearer <key>"';
  throw new GraphqlRequestError(401, [envelopeError(message, 'UNAUTHENTICATED')]);
}

/** The request body: JSON of `{query, variables?, operationName?}`, else a 400 (413 when too large). */
async function requestOf(ctx: Ctx): Promise<z.infer<typeof Request>> {
  const body = await requestFailureOf(() => readBody(ctx.req, GRAPHQL_BODY_LIMIT, '/graphql'));
  const raw = await requestFailureOf(() => parseJson(body));
  const parsed = Request.safeParse(raw);
  if (!parsed.success)
    throw new GraphqlRequestError(400, [
      envelopeError(`invalid request: ${parsed.error.issues[0]!.message}`, 'BAD_REQUEST'),
    ]);
  return parsed.data;
}

/** The query parsed (at most GRAPHQL_LIMITS.maxTokens tokens), else a 400 GRAPHQL_PARSE_FAILED. */
function documentOf(query: string): DocumentNode {
  try {
    return parse(query, { maxTokens: GRAPHQL_LIMITS.maxTokens });
  } catch (err) {
    if (!(err instanceof GraphQLError)) throw err;
    // graphql-js words it "contains more that N tokens": say it plainly, naming the limit.
    const message = /Document contains more th\w+ \d+ tokens/.test(err.message)
      ? `the query has more than ${GRAPHQL_LIMITS.maxTokens} tokens (the limit of a GraphQL document)`
      : err.message;
    throw new GraphqlRequestError(400, [
      { message, locations: err.locations, extensions: { code: 'GRAPHQL_PARSE_FAILED' } },
    ]);
  }
}

/** Validates `document`: the limits first, alone (some standard rules, overlapping fields, cost the square of a field's aliases). */
function checkDocument(schema: GraphQLSchema, limits: ValidationRule[], document: DocumentNode): void {
  const overLimit = validateDocument(schema, document, limits);
  const invalid = overLimit.length > 0 ? overLimit : validateDocument(schema, document, specifiedRules);
  if (invalid.length > 0)
    throw new GraphqlRequestError(
      400,
      invalid.map((e) => formatValidationError(e, document)),
    );
}

/**
 * `POST /graphql`: the control-plane GraphQL API. The key comes from `?api_key=` (the spec) or
 * `Authorization: Bearer` (the official Python client). Answers are the standard envelope:
 * `{data}` on success (no `errors` key at all: the Python client raises on its mere presence),
 * `{data, errors}` when a field failed, `{errors}` with 400/401 when the request never ran.
 */
export function graphqlRoutes(options: GraphqlOptions = {}): RouteGroup {
  const schema = buildControlPlaneSchema();
  const serverlessDiscount = options.serverlessDiscount ?? null;
  const limits = limitRules();

  const prepare = async (
    ctx: Ctx,
    s: PlatformServices,
  ): Promise<{ document: DocumentNode; context: GqlContext; request: z.infer<typeof Request> }> => {
    const user = callerOf(ctx, s);
    const request = await requestOf(ctx);
    const document = documentOf(request.query);
    checkDocument(schema, limits, document);
    return { document, context: { s, user, serverlessDiscount }, request };
  };

  return (router, s) => {
    router.on('POST', '/graphql', async (ctx) => {
      try {
        const { document, context, request } = await prepare(ctx, s);
        const result = await execute({
          schema,
          document,
          contextValue: context,
          variableValues: request.variables ?? undefined,
          operationName: request.operationName ?? undefined,
        });
        const errors = result.errors?.map((e) => formatExecutionError(e, s.logger));
        if (result.data === undefined) {
          // Nothing ran (bad variables, unknown operation name): a request error.
          return sendJson(ctx.res, 400, {
            errors: errors ?? [envelopeError('the request did not run', 'BAD_REQUEST')],
          });
        }
        sendJson(ctx.res, 200, errors ? { data: result.data, errors } : { data: result.data });
      } catch (err) {
        // Answered here, never by the generic handler: its log line would carry the URL and so the api_key.
        // A caller refused before its body was read (401) is not drained past what the route reads; a known caller's
        // over-limit body is, as on every route (it is still sending: a close now would be its broken pipe).
        const stranger = err instanceof GraphqlRequestError && err.status === 401;
        const close = await discardUnread(ctx.req, stranger ? GRAPHQL_BODY_LIMIT : undefined);
        if (err instanceof GraphqlRequestError) return sendJson(ctx.res, err.status, { errors: err.errors }, close);
        s.logger.error({ err }, 'GraphQL request failed');
        sendJson(ctx.res, 500, { errors: [envelopeError('internal error', 'INTERNAL_SERVER_ERROR')] }, close);
      }
    });
  };
}
