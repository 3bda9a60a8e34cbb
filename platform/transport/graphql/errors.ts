/** GraphQL error codes and the formatting of platform and GraphQL errors. */
import { GraphQLError, Kind, visit, type ASTNode, type DocumentNode, type GraphQLFormattedError } from 'graphql';
import { type Logger } from 'pino';
import { isPlatformError, type PlatformError } from '../../core/errors';

/**
 * `extensions.code` of GraphQL errors (Apollo's names where one exists):
 * - GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, BAD_REQUEST: the request itself (HTTP 400, no `data`)
 * - UNAUTHENTICATED: missing or unknown API key (HTTP 401)
 * - BAD_USER_INPUT: an argument is invalid; `extensions.field` names it
 * - FORBIDDEN: the resource is another user's
 * - NOT_FOUND: unknown id
 * - FAILED_PRECONDITION: the resource's state refuses the operation (deleting an endpoint with workers)
 * - INTERNAL_SERVER_ERROR: a bug of ours (logged; the message says nothing more)
 */
export type GraphqlErrorCode =
  | 'GRAPHQL_PARSE_FAILED'
  | 'GRAPHQL_VALIDATION_FAILED'
  | 'BAD_REQUEST'
  | 'UNAUTHENTICATED'
  | 'BAD_USER_INPUT'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'FAILED_PRECONDITION'
  | 'INTERNAL_SERVER_ERROR';

const BY_PLATFORM_CODE: Record<string, GraphqlErrorCode> = {
  BAD_REQUEST: 'BAD_USER_INPUT',
  PAYLOAD_TOO_LARGE: 'BAD_REQUEST',
  CONFLICT: 'BAD_USER_INPUT',
  UNAUTHORIZED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  FAILED_PRECONDITION: 'FAILED_PRECONDITION',
};

/** A GraphQL request that failed before execution: answered with `status` and an envelope without `data`. */
export class GraphqlRequestError extends Error {
  readonly code = 'GRAPHQL_REQUEST_FAILED' as const;
  constructor(
    readonly status: number,
    readonly errors: GraphQLFormattedError[],
  ) {
    super(errors[0]?.message ?? 'GraphQL request failed');
    this.name = 'GraphqlRequestError';
  }
}

/** The GraphQL code of a platform error. */
export const graphqlCode = (e: PlatformError): GraphqlErrorCode => BY_PLATFORM_CODE[e.code] ?? 'INTERNAL_SERVER_ERROR';

/** One error of the envelope, built from scratch (request-level failures). */
export function envelopeError(message: string, code: GraphqlErrorCode, field?: string): GraphQLFormattedError {
  return { message, extensions: field ? { code, field } : { code } };
}

/**
 * An execution error as the envelope shows it: platform errors keep their message (which names
 * the field) and get their code; anything else is an internal error, logged and not described.
 */
export function formatExecutionError(err: GraphQLError, logger: Logger): GraphQLFormattedError {
  const original = err.originalError;
  const base = { locations: err.locations, path: err.path };
  if (isPlatformError(original)) {
    const field =
      typeof original.context.field === 'string' && original.context.field ? original.context.field : undefined;
    return {
      message: original.message,
      ...base,
      extensions: { code: graphqlCode(original), ...(field ? { field } : {}) },
    };
  }
  if (original && !(original instanceof GraphQLError)) {
    logger.error({ err: original, path: err.path }, 'GraphQL resolver failed');
    return { message: 'internal error', ...base, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  }
  // graphql-js's own execution errors (variable coercion, non-null violations).
  return { message: err.message, ...base, extensions: { code: 'BAD_USER_INPUT' } };
}

/**
 * A validation error with the input field it is about: graphql-js reports a wrong literal
 * (`workersMin: "3"`) at the value node, without the field's name, so it is looked up in the
 * document and put in front of the message and in `extensions.field`.
 */
export function formatValidationError(err: GraphQLError, document: DocumentNode): GraphQLFormattedError {
  const node = err.nodes?.[0];
  // Missing arguments and input fields are reported at their parent: the name is in the message.
  const missing = /argument "(\w+)" of type .* is required|Field "\w+\.(\w+)" of required type/.exec(err.message);
  const names = node ? namesTo(document, node) : undefined;
  let field: string | undefined;
  if (missing)
    field = [...(node?.kind === Kind.OBJECT && names ? names.slice(1) : []), missing[1] ?? missing[2]].join('.');
  // Below an argument, name the input field (`workersMin`, not `input.workersMin`); else the argument.
  else if (names && names.length > 0) field = (names.length > 1 ? names.slice(1) : names).join('.');
  const message =
    field && !err.message.includes(`"${field.split('.').pop()}"`) ? `${field}: ${err.message}` : err.message;
  return {
    message,
    locations: err.locations,
    extensions: field ? { code: 'GRAPHQL_VALIDATION_FAILED', field } : { code: 'GRAPHQL_VALIDATION_FAILED' },
  };
}

/** Names of the argument and input-object fields that lead to `target` (e.g. `input`, `workersMin`). */
function namesTo(document: DocumentNode, target: ASTNode): string[] | undefined {
  const names: string[] = [];
  let found: string[] | undefined;
  visit(document, {
    enter(node) {
      if (found) return false;
      if (node.kind === Kind.OBJECT_FIELD || node.kind === Kind.ARGUMENT) names.push(node.name.value);
      if (node === target) {
        found = [...names];
        return false;
      }
      return undefined;
    },
    leave(node) {
      if (node.kind === Kind.OBJECT_FIELD || node.kind === Kind.ARGUMENT) names.pop();
    },
  });
  return found;
}
