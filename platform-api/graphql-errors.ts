/** The answer envelope of the GraphQL API and its errors: each error list as a typed error, and the field it names. */
import { z } from 'zod';
import {
  BadRequestError,
  NotFoundError,
  ServerError,
  UnauthorizedError,
  isPlatformApiError,
  type PlatformApiError,
  type PlatformApiErrorContext,
} from './errors';

/** One error of a GraphQL answer. */
export const GraphqlErrorItem = z.looseObject({
  message: z.string(),
  path: z.array(z.union([z.string(), z.number()])).optional(),
  extensions: z.looseObject({ code: z.string().optional(), field: z.string().optional() }).optional(),
});
export type GraphqlErrorItem = z.infer<typeof GraphqlErrorItem>;

/** A GraphQL answer: `data`, `errors`, or both. */
export const Envelope = z.looseObject({
  data: z.record(z.string(), z.unknown()).nullable().optional(),
  errors: z.array(GraphqlErrorItem).optional(),
});

/** The field a GraphQL error of the platform names (`extensions.field`), when the error carries one. */
export function graphqlErrorField(e: unknown): string | undefined {
  if (!isPlatformApiError(e)) return undefined;
  const parsed = z.object({ errors: z.array(GraphqlErrorItem) }).safeParse(e.body);
  return parsed.success ? parsed.data.errors[0]?.extensions?.field : undefined;
}

/** The typed error of a GraphQL error list, by the first error's `extensions.code`. */
export function errorOf(errors: GraphqlErrorItem[], ctx: PlatformApiErrorContext): PlatformApiError {
  const first = errors[0];
  const msg = `${ctx.operation ?? 'graphql'} failed: ${first?.message ?? 'unknown error'}`;
  const c = { ...ctx, body: { errors } };
  switch (first?.extensions?.code) {
    case 'UNAUTHENTICATED':
    case 'FORBIDDEN':
      return new UnauthorizedError(msg, c);
    case 'NOT_FOUND':
      return new NotFoundError(msg, c);
    case 'INTERNAL_SERVER_ERROR':
      return new ServerError(msg, c);
    default:
      // Input, validation and precondition errors: repeating the same request cannot succeed.
      return new BadRequestError(msg, c);
  }
}
