/** GraphQL resolvers of the User and Endpoint object types: derived and defaulted fields. */
import { type Endpoint, type Pod } from '../../../contracts';
import { placeIn } from '../../control-plane/data-centers';
import { costPerHr, networkVolumeObject } from '../../control-plane/hardware-objects';
import { podView } from '../../control-plane/pod-view';
import { type User } from '../../control-plane/users';
import { type Resolver } from './context';
import { podTemplateOf, envList } from './template-shape';

/** A worker pod as the GraphQL `Pod` type: the REST view with GraphQL spellings (env as pairs). */
function graphqlPod(view: Pod): Record<string, unknown> {
  return { ...view, imageName: view.image, env: envList(view.env), gpuCount: view.gpu?.count ?? 0 };
}

/** Resolvers of the object types; fields not listed read the property of the same name. */
export const TYPE_RESOLVERS: Record<string, Record<string, Resolver<never, never>>> = {
  User: {
    email: ((user: User) => `${user.name}@localhost`) as Resolver<User>,
    clientBalance: (() => 0) as Resolver,
    currentSpendPerHr: ((user: User, _args, ctx) =>
      ctx.s.pool
        .allPods()
        .filter((p) => p.userId === user.id && p.phase !== 'exited' && p.spec)
        .reduce((sum, p) => sum + costPerHr(p.spec!.gpuTier, p.spec!.gpuCount), 0)) as Resolver<User>,
    spendLimit: (() => null) as Resolver,
    notifyPodsStale: (() => false) as Resolver,
    notifyPodsGeneral: (() => false) as Resolver,
    notifyLowBalance: (() => false) as Resolver,
    pubKey: (() => null) as Resolver,
    endpoints: ((user: User, _args, ctx) => ctx.s.registry.endpointsOf(user.id)) as Resolver<User>,
    podTemplates: ((user: User, _args, ctx) =>
      ctx.s.registry
        .templatesOf(user.id)
        .filter((t) => t.userId === user.id)
        .map(podTemplateOf)) as Resolver<User>,
    networkVolumes: (() => []) as Resolver,
    serverlessDiscount: ((_user, _args, ctx) => ctx.serverlessDiscount) as Resolver,
  },
  Endpoint: {
    gpuCount: ((e: Endpoint) => e.gpuCount ?? 1) as Resolver<Endpoint>,
    workersStandby: ((e: Endpoint) => e.workersMin) as Resolver<Endpoint>,
    type: (() => 'QB') as Resolver,
    aiKey: (() => null) as Resolver,
    env: (() => []) as Resolver,
    executionTimeoutMs: ((e: Endpoint) => e.executionTimeoutMs ?? 0) as Resolver<Endpoint>,
    instanceIds: ((e: Endpoint) => e.instanceIds ?? []) as Resolver<Endpoint>,
    networkVolumeIds: ((e: Endpoint) =>
      (e.networkVolumeIds ?? []).map((networkVolumeId) => ({
        networkVolumeId,
        dataCenterId: null,
      }))) as Resolver<Endpoint>,
    computeType: ((e: Endpoint) => e.computeType ?? 'GPU') as Resolver<Endpoint>,
    modelReferences: ((e: Endpoint) => e.modelReferences ?? []) as Resolver<Endpoint>,
    activeBuildid: (() => null) as Resolver,
    idePodId: (() => null) as Resolver,
    networkVolume: ((e: Endpoint) =>
      e.networkVolumeId ? networkVolumeObject(e.networkVolumeId, placeIn(e.locations).id) : null) as Resolver<Endpoint>,
    template: ((e: Endpoint, _args, ctx) => {
      const t = ctx.s.registry.template(e.templateId);
      return t ? podTemplateOf(t) : null;
    }) as Resolver<Endpoint>,
    pods: ((e: Endpoint, _args, ctx) =>
      ctx.s.pool
        .podsOf(e.id)
        .filter((p) => p.phase !== 'exited')
        .map((p) =>
          graphqlPod(podView(p, ctx.s.registry, { machine: true, networkVolume: true, savingsPlans: true })),
        )) as Resolver<Endpoint>,
  },
};
