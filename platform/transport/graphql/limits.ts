/** Limits of a GraphQL request: tokens when parsing, then depth, aliases and cost as validation rules (graphql-armor). */
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { GraphQLError, type ValidationContext, type ValidationRule } from 'graphql';

/** The limits of one GraphQL document. */
export interface GraphqlLimits {
  /**
   * Tokens in the document (graphql-js `parse`'s `maxTokens`, checked while lexing; graphql-armor's
   * default). It also bounds nesting before the recursive parser sees it: each level takes a token
   * at least, so a document nests at most 1,000 levels, where the parser's stack overflows at about
   * 2,000. Enough for a template of a hundred inline environment variables; variables are not counted.
   * @default 1000
   */
  maxTokens: number;
  /**
   * Depth of the selection (fields within fields); the control plane's deepest real query has 6.
   * @default 15
   */
  maxDepth: number;
  /**
   * Aliases in an operation (each alias runs its field again).
   * @default 15
   */
  maxAliases: number;
  /**
   * graphql-armor's cost: 2 per object field, 1 per scalar field, times 1.5 per level of depth.
   * @default 5000
   */
  maxCost: number;
}

export const GRAPHQL_LIMITS: GraphqlLimits = { maxTokens: 1000, maxDepth: 15, maxAliases: 15, maxCost: 5000 };

/**
 * A refusal becomes a validation error of the request (graphql-armor would throw it out of
 * `validate`), worded without graphql-armor's misleading "Syntax Error: " prefix.
 */
const report = {
  exposeLimits: true,
  propagateOnRejection: false,
  onReject: [
    (ctx: ValidationContext | null, err: GraphQLError): void =>
      ctx?.reportError(new GraphQLError(err.message.replace(/^Syntax Error: /, ''))),
  ],
};

/** graphql-armor's rules for `limits`, run before graphql-js's standard ones; their errors name the limit. */
export function limitRules(limits: GraphqlLimits = GRAPHQL_LIMITS): ValidationRule[] {
  return [
    maxDepthRule({ n: limits.maxDepth, flattenFragments: true, ...report }),
    maxAliasesRule({ n: limits.maxAliases, ...report }),
    costLimitRule({ maxCost: limits.maxCost, ...report }),
  ] as unknown as ValidationRule[];
}
