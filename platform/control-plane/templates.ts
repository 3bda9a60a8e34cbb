/** Template operations of the control plane: visibility, ownership, create and update. */
import {
  TEMPLATE_DEFAULTS,
  TemplateCreate,
  TemplateUpdate,
  type Endpoint,
  type Template,
  type TemplateExtras,
} from '../../contracts';
import { BadRequestError, ForbiddenError, NotFoundError, PreconditionFailedError } from '../core/errors';
import { SAFE_ID } from '../core/ids';
import { type Registry, type StoredTemplate } from './registry';
import { type User } from './users';
import { validate } from '../core/validate';

/** The wire Template: the stored one without its owner. */
export function toWireTemplate(t: StoredTemplate): Template {
  const { userId: _owner, extras: _extras, ...wire } = t;
  return { ...wire, containerRegistryAuthId: wire.containerRegistryAuthId ?? null };
}

/** A template `user` may read or run: their own or a public one; undefined otherwise. */
export function visibleTemplate(registry: Registry, user: User, id: string): StoredTemplate | undefined {
  const t = SAFE_ID.test(id) ? registry.template(id) : undefined;
  return t && (t.userId === user.id || t.isPublic) ? t : undefined;
}

/** The template `id` for reading: 404 when unknown, 401 when it is another user's private one. */
export function readableTemplate(registry: Registry, user: User, id: string): StoredTemplate {
  const t = SAFE_ID.test(id) ? registry.template(id) : undefined;
  if (!t) throw new NotFoundError(`templateId: template ${id} not found`, { field: 'templateId' });
  if (t.userId !== user.id && !t.isPublic)
    throw new ForbiddenError(`templateId: this API key has no access to template ${id}`, { field: 'templateId' });
  return t;
}

/** The template `id` for changing: only its owner may, and official (service-managed) templates are read-only. */
export function ownedTemplate(registry: Registry, user: User, id: string): StoredTemplate {
  const t = readableTemplate(registry, user, id);
  if (t.userId !== user.id)
    throw new ForbiddenError(`templateId: only the owner of template ${id} can change it`, { field: 'templateId' });
  if (t.isRunpod) {
    throw new ForbiddenError(
      `templateId: ${t.name} is an official template managed by the platform; create your own with POST /v1/templates`,
      { field: 'templateId' },
    );
  }
  return t;
}

/**
 * Creates a template owned by `user` from a `POST /v1/templates` body (validated here). Missing
 * fields take the spec's defaults; names are unique across the platform.
 */
export function createTemplate(
  registry: Registry,
  user: User,
  raw: unknown,
  extras?: Partial<TemplateExtras>,
): StoredTemplate {
  const body = validate(TemplateCreate, raw);
  requireCommand(body.isServerless ?? false, body.dockerEntrypoint ?? [], body.dockerStartCmd ?? []);
  return registry.saveTemplate({
    userId: user.id,
    name: body.name,
    imageName: body.imageName,
    category: body.category ?? 'NVIDIA',
    containerDiskInGb: body.containerDiskInGb ?? TEMPLATE_DEFAULTS.containerDiskInGb,
    containerRegistryAuthId: emptyToNull(body.containerRegistryAuthId),
    dockerEntrypoint: body.dockerEntrypoint ?? [],
    dockerStartCmd: body.dockerStartCmd ?? [],
    env: body.env ?? {},
    isPublic: body.isPublic ?? TEMPLATE_DEFAULTS.isPublic,
    isRunpod: false,
    isServerless: body.isServerless ?? false,
    ports: body.ports ?? [],
    readme: body.readme ?? TEMPLATE_DEFAULTS.readme,
    volumeInGb: body.volumeInGb ?? TEMPLATE_DEFAULTS.volumeInGb,
    volumeMountPath: body.volumeMountPath || TEMPLATE_DEFAULTS.volumeMountPath,
    ...(extras ? { extras } : {}),
  });
}

/** How an update treats fields the body leaves out. */
export type UpdateMode =
  /** REST: the spec's defaults apply to omitted fields that have one (containerDiskInGb 50, ...). */
  | 'spec-defaults'
  /** GraphQL `saveTemplate` with an id: omitted fields keep their value. */
  | 'merge';

/**
 * Updates a template of `user` (body validated here) and starts a rolling release on every
 * endpoint that uses it: each endpoint's version goes up and the pool replaces its workers.
 */
export function updateTemplate(
  registry: Registry,
  user: User,
  id: string,
  raw: unknown,
  mode: UpdateMode,
  extras?: Partial<TemplateExtras>,
): { template: StoredTemplate; released: Endpoint[] } {
  const current = ownedTemplate(registry, user, id);
  const body = validate(TemplateUpdate, raw);
  const given = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as TemplateUpdate;
  const base: StoredTemplate = mode === 'spec-defaults' ? { ...current, ...TEMPLATE_DEFAULTS } : current;
  const next: StoredTemplate = { ...base, ...given, id: current.id, userId: current.userId };
  if ('containerRegistryAuthId' in given) next.containerRegistryAuthId = emptyToNull(given.containerRegistryAuthId);
  if (next.volumeMountPath === '') next.volumeMountPath = TEMPLATE_DEFAULTS.volumeMountPath;
  if (extras) next.extras = { ...current.extras, ...extras };
  requireCommand(next.isServerless, next.dockerEntrypoint, next.dockerStartCmd);
  const template = registry.saveTemplate(next);
  // Every update is a release, as the spec says: the workers read the template only when they start.
  const released = registry.endpointsUsingTemplate(id).map((e) => registry.bumpVersion(e.id));
  return { template, released };
}

/**
 * Deletes a template of `user` (REST `DELETE /v1/templates/{id}`, GraphQL `deleteTemplate`).
 * Refused while an endpoint uses it, as the service does.
 */
export function deleteTemplate(registry: Registry, user: User, id: string): void {
  const t = ownedTemplate(registry, user, id);
  const users = registry.endpointsUsingTemplate(t.id);
  if (users.length > 0) {
    throw new PreconditionFailedError(
      `templateId: template ${id} is used by endpoint ${users.map((e) => e.id).join(', ')}; delete or switch those endpoints first`,
      { field: 'templateId' },
    );
  }
  registry.deleteTemplate(t.id);
}

/** There is no container runtime locally, so a serverless template must say what to run. */
function requireCommand(isServerless: boolean, entrypoint: string[], startCmd: string[]): void {
  if (isServerless && entrypoint.length + startCmd.length === 0) {
    throw new BadRequestError(
      'invalid body: dockerStartCmd: a serverless template needs a command (dockerEntrypoint + dockerStartCmd): the local platform runs it as the worker process',
      { field: 'dockerStartCmd' },
    );
  }
}

const emptyToNull = (v: string | null | undefined): string | null => (v ? v : null);
