/** GraphQL field resolvers: thin adapters over the control-plane operations. */
import { type GraphQLFieldResolver } from 'graphql';
import { type Endpoint, type Pod, type SaveTemplateInput, type ServerlessDiscount } from '../../../contracts';
import { networkVolumeObject, placeIn } from '../../control-plane/catalog';
import { deleteEndpoint, saveEndpoint } from '../../control-plane/endpoints';
import { podView } from '../../control-plane/pod-view';
import { createTemplate, ownedTemplate, updateTemplate, visibleTemplate } from '../../control-plane/templates';
import { type User } from '../../control-plane/users';
import { type PlatformServices } from '../../services';
import { envList, podTemplateOf, templateBody } from './template-shape';

/** Per-request context of every resolver. */
export interface GqlContext {
  s: PlatformServices;
  user: User;
  serverlessDiscount: ServerlessDiscount | null;
}

type Resolver<Source = unknown, Args = Record<string, unknown>> = GraphQLFieldResolver<Source, GqlContext, Args>;

/** A worker pod as the GraphQL `Pod` type: the REST view with GraphQL spellings (env as pairs). */
function graphqlPod(view: Pod): Record<string, unknown> {
  return { ...view, imageName: view.image, env: envList(view.env), gpuCount: view.gpu?.count ?? 0 };
}

/**
 * Field resolvers by type. Each is a thin adapter over the domain functions the REST routes
 * use too; fields not listed here read the property of the same name.
 */
export const RESOLVERS: Record<string, Record<string, Resolver<never, never>>> = {
  Query: {
    myself: ((_src, _args, ctx) => ctx.user) as Resolver,
    podTemplate: ((_src, args: { id: string }, ctx) => {
      const t = visibleTemplate(ctx.s.registry, ctx.user, args.id);
      return t ? podTemplateOf(t) : null;
    }) as Resolver<unknown, { id: string }>,
  },
  Mutation: {
    saveEndpoint: ((_src, args: { input: unknown }, ctx) => saveEndpoint(ctx.s, ctx.user, args.input)) as Resolver<unknown, { input: unknown }>,
    deleteEndpoint: ((_src, args: { id: string }, ctx) => {
      deleteEndpoint(ctx.s, ctx.user, args.id);
      return null;
    }) as Resolver<unknown, { id: string }>,
    updateEndpointTemplate: ((_src, args: { input: { endpointId: string; templateId: string } }, ctx) =>
      saveEndpoint(ctx.s, ctx.user, { id: args.input.endpointId, templateId: args.input.templateId })) as Resolver<unknown, { input: { endpointId: string; templateId: string } }>,
    saveTemplate: ((_src, args: { input: SaveTemplateInput }, ctx) => {
      const { registry } = ctx.s;
      const id = args.input.id;
      if (id === undefined || id === null) return podTemplateOf(createTemplate(registry, ctx.user, templateBody(args.input)));
      const current = ownedTemplate(registry, ctx.user, id);
      return podTemplateOf(updateTemplate(registry, ctx.user, id, templateBody(args.input, current), 'merge').template);
    }) as Resolver<unknown, { input: SaveTemplateInput }>,
  },
  User: {
    pubKey: (() => null) as Resolver,
    endpoints: ((user: User, _args, ctx) => ctx.s.registry.endpointsOf(user.id)) as Resolver<User>,
    podTemplates: ((user: User, _args, ctx) =>
      ctx.s.registry.templatesOf(user.id).filter((t) => t.userId === user.id).map(podTemplateOf)) as Resolver<User>,
    networkVolumes: (() => []) as Resolver,
    serverlessDiscount: ((_user, _args, ctx) => ctx.serverlessDiscount) as Resolver,
  },
  Endpoint: {
    gpuCount: ((e: Endpoint) => e.gpuCount ?? 1) as Resolver<Endpoint>,
    workersStandby: ((e: Endpoint) => e.workersMin) as Resolver<Endpoint>,
    type: (() => 'QB') as Resolver,
    aiKey: (() => null) as Resolver,
    env: (() => []) as Resolver,
    networkVolume: ((e: Endpoint) => (e.networkVolumeId ? networkVolumeObject(e.networkVolumeId, placeIn(e.locations).id) : null)) as Resolver<Endpoint>,
    template: ((e: Endpoint, _args, ctx) => {
      const t = ctx.s.registry.template(e.templateId);
      return t ? podTemplateOf(t) : null;
    }) as Resolver<Endpoint>,
    pods: ((e: Endpoint, _args, ctx) =>
      ctx.s.pool.podsOf(e.id)
        .filter((p) => p.phase !== 'exited')
        .map((p) => graphqlPod(podView(p, ctx.s.registry, { machine: true, networkVolume: true, savingsPlans: true })))) as Resolver<Endpoint>,
  },
};
