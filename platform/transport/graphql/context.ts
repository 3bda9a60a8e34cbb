/** What every GraphQL resolver receives: the per-request context and the resolver type built on it. */
import { type GraphQLFieldResolver } from 'graphql';
import { type ServerlessDiscount } from '../../../contracts';
import { type User } from '../../control-plane/users';
import { type PlatformServices } from '../../services';

/** Per-request context of every resolver. */
export interface GqlContext {
  s: PlatformServices;
  user: User;
  serverlessDiscount: ServerlessDiscount | null;
}

export type Resolver<Source = unknown, Args = Record<string, unknown>> = GraphQLFieldResolver<Source, GqlContext, Args>;
