/** GraphQL root resolvers (queries and mutations): thin adapters over the control-plane operations. */
import { type SaveTemplateInput } from '../../../contracts';
import { BadRequestError, NotFoundError } from '../../core/errors';
import { gpuTypes } from '../../control-plane/catalog';
import { DATA_CENTERS } from '../../control-plane/data-centers';
import { deleteEndpoint, saveEndpoint } from '../../control-plane/endpoints';
import {
  createTemplate,
  deleteTemplate,
  ownedTemplate,
  updateTemplate,
  visibleTemplate,
} from '../../control-plane/templates';
import { type Resolver } from './context';
import { saveEndpointInput } from './endpoint-input';
import { podTemplateOf, templateBody, templateExtras } from './template-shape';
import { TYPE_RESOLVERS } from './type-resolvers';

/** A nullable input argument (the service declares them so): missing is a BAD_USER_INPUT naming it. */
function required<T>(value: T | null | undefined, what: string): T {
  if (value === undefined || value === null)
    throw new BadRequestError(`input: required (a ${what})`, { field: 'input' });
  return value;
}

interface TemplateFilter {
  isRunpod?: boolean | null;
  isServerless?: boolean | null;
  category?: string | null;
}
type SwitchInput = { endpointId: string; templateId: string } | null;

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
    podTemplates: ((_src, args: { input?: TemplateFilter | null }, ctx) => {
      const f = args.input ?? {};
      return ctx.s.registry
        .templatesOf(ctx.user.id)
        .filter((t) => t.isPublic || t.isRunpod)
        .filter(
          (t) =>
            (f.isRunpod ?? t.isRunpod) === t.isRunpod &&
            (f.isServerless ?? t.isServerless) === t.isServerless &&
            (f.category ?? t.category) === t.category,
        )
        .map(podTemplateOf);
    }) as Resolver<unknown, { input?: TemplateFilter | null }>,
    gpuTypes: ((_src, args: { input?: { id?: string | null } | null }) =>
      gpuTypes().filter((g) => !args.input?.id || g.id === args.input.id)) as Resolver<
      unknown,
      { input?: { id?: string | null } | null }
    >,
    dataCenters: (() => {
      const stock = gpuTypes().map((g) => ({ gpuTypeId: g.id, displayName: g.displayName, stockStatus: 'High' }));
      return DATA_CENTERS.map((d) => ({ id: d.id, name: d.id, location: d.location, gpuAvailability: stock }));
    }) as Resolver,
    serverlessGpuPools: (() => gpuTypes().map((g) => ({ id: g.pool, gpuTypeIds: [g.id] }))) as Resolver,
  },
  Mutation: {
    saveEndpoint: ((_src, args: { input: unknown }, ctx) => saveEndpointInput(ctx.s, ctx.user, args.input)) as Resolver<
      unknown,
      { input: unknown }
    >,
    deleteEndpoint: ((_src, args: { id: string }, ctx) => {
      deleteEndpoint(ctx.s, ctx.user, args.id);
      return null;
    }) as Resolver<unknown, { id: string }>,
    updateEndpointTemplate: ((_src, args: { input?: SwitchInput }, ctx) => {
      const input = required(args.input, 'UpdateEndpointTemplateInput {endpointId, templateId}');
      return saveEndpoint(ctx.s, ctx.user, { id: input.endpointId, templateId: input.templateId });
    }) as Resolver<unknown, { input?: SwitchInput }>,
    saveTemplate: ((_src, args: { input?: SaveTemplateInput | null }, ctx) => {
      const input = required(args.input, 'SaveTemplateInput');
      const { registry } = ctx.s;
      if (input.id === undefined || input.id === null)
        return podTemplateOf(createTemplate(registry, ctx.user, templateBody(input), templateExtras(input)));
      const current = ownedTemplate(registry, ctx.user, input.id);
      return podTemplateOf(
        updateTemplate(registry, ctx.user, input.id, templateBody(input, current), 'merge', templateExtras(input))
          .template,
      );
    }) as Resolver<unknown, { input?: SaveTemplateInput | null }>,
    deleteTemplate: ((_src, args: { templateName?: string | null }, ctx) => {
      const name = args.templateName;
      if (!name)
        throw new BadRequestError('templateName: required (the name of one of your templates)', {
          field: 'templateName',
        });
      const t = ctx.s.registry.templateByName(name);
      if (!t || (t.userId !== ctx.user.id && !t.isPublic))
        throw new NotFoundError(`templateName: no template named "${name}"`, { field: 'templateName' });
      deleteTemplate(ctx.s.registry, ctx.user, t.id);
      return null;
    }) as Resolver<unknown, { templateName?: string | null }>,
  },
  ...TYPE_RESOLVERS,
};
