/** Endpoint operations of the control plane: saveEndpoint (create, modify, rolling release) and deleteEndpoint. */
import { ENDPOINT_DEFAULTS, EndpointInput, type Endpoint } from '../../contracts';
import { BadRequestError, ForbiddenError, NotFoundError, PreconditionFailedError } from '../core/errors';
import { DEFAULT_GPU_TIER } from './catalog';
import { unknownLocations } from './data-centers';
import { SAFE_ID } from '../core/ids';
import { type JobEngine } from '../jobs/engine';
import { type Registry } from './registry';
import { visibleTemplate } from './templates';
import { type User } from './users';
import { validate } from '../core/validate';

/** What the endpoint operations touch. */
export interface EndpointDeps {
  registry: Registry;
  engine: JobEngine;
}

/** Fields whose change replaces the workers (a new release): they shape what a worker is. */
const RELEASE_FIELDS = [
  'templateId',
  'gpuIds',
  'gpuCount',
  'locations',
  'networkVolumeId',
  'allowedCudaVersions',
  'minCudaVersion',
] as const;

/** Recorded fields where null (or 0 for the timeout) means "not set". */
const CLEARABLE = [
  'executionTimeoutMs',
  'minCudaVersion',
  'workersPFBTarget',
  'instanceIds',
  'networkVolumeIds',
  'flashEnvironmentId',
  'computeType',
  'modelReferences',
] as const;

/** The endpoint `id` of `user`: NOT_FOUND when unknown, FORBIDDEN (401) when another user's. */
export function ownedEndpoint(registry: Registry, user: User, id: string): Endpoint {
  const e = SAFE_ID.test(id) ? registry.endpoint(id) : undefined;
  if (!e) throw new NotFoundError(`id: endpoint ${id} not found`, { field: 'id' });
  if (e.userId !== user.id) throw new ForbiddenError(`id: endpoint ${id} belongs to another user`, { field: 'id' });
  return e;
}

/**
 * `saveEndpoint`: creates an endpoint (no `id`; `name` and `templateId` required, `gpuIds` defaults
 * to {@link DEFAULT_GPU_TIER}) or modifies one of the caller's (with `id`; only the given fields change). Changing the template,
 * GPUs, locations or volume starts a rolling release; scaling fields apply to the live pool at once.
 */
export function saveEndpoint(deps: EndpointDeps, user: User, raw: unknown): Endpoint {
  const { template: inline, type: _qb, networkVolumeIds: volumes, ...input } = validate(EndpointInput, raw, 'input');
  if (inline !== undefined && inline !== null)
    throw new BadRequestError('template: an inline template is accepted only by the GraphQL saveEndpoint', {
      field: 'template',
    });
  const previous = input.id === undefined ? undefined : ownedEndpoint(deps.registry, user, input.id);
  if (!previous) {
    for (const field of ['name', 'templateId'] as const) {
      if (input[field] === undefined) throw new BadRequestError(`${field}: required to create an endpoint`, { field });
    }
  }
  if (input.templateId !== undefined) checkTemplate(deps.registry, user, input.templateId);
  if (input.locations) {
    const unknown = unknownLocations(input.locations);
    if (unknown.length > 0)
      throw new BadRequestError(
        `locations: unknown data center or country ${unknown.map((l) => `"${l}"`).join(', ')}`,
        { field: 'locations' },
      );
  }

  const given = Object.fromEntries(
    Object.entries(input).filter(([k, v]) => v !== undefined && k !== 'id'),
  ) as Partial<Endpoint>;
  if (volumes !== undefined)
    given.networkVolumeIds = volumes === null ? undefined : volumes.map((v) => v.networkVolumeId);
  const merged = {
    ...(previous ?? {
      ...ENDPOINT_DEFAULTS,
      gpuIds: DEFAULT_GPU_TIER,
      gpuCount: 1,
      createdAt: new Date().toISOString(),
    }),
    ...given,
    userId: user.id,
  } as Endpoint;
  // Nullable text fields: "" and null both mean "none" (the official Python client sends "").
  merged.locations = merged.locations ?? '';
  merged.networkVolumeId = merged.networkVolumeId || null;
  if (!merged.allowedCudaVersions) delete merged.allowedCudaVersions;
  for (const f of CLEARABLE)
    if (merged[f] === null || merged[f] === undefined || (f === 'executionTimeoutMs' && merged[f] === 0))
      delete merged[f];
  // The service's old convention: a name ending in "-fb" asks for FlashBoot.
  if (!previous && input.flashBootType === undefined && /-fb$/i.test(merged.name)) merged.flashBootType = 'FLASHBOOT';
  if (merged.workersMin > merged.workersMax) {
    const field = input.workersMin !== undefined ? 'workersMin' : 'workersMax';
    throw new BadRequestError(
      `${field}: workersMin (${merged.workersMin}) must not exceed workersMax (${merged.workersMax})`,
      { field },
    );
  }

  const { version: _v, id: _id, ...fields } = merged;
  const saved = deps.registry.saveEndpoint(previous ? { ...fields, id: previous.id } : fields);
  const release = previous && RELEASE_FIELDS.some((f) => (previous[f] ?? null) !== (saved[f] ?? null));
  return release ? deps.registry.bumpVersion(saved.id) : saved;
}

/**
 * `deleteEndpoint`: refused unless workersMin and workersMax are both 0 (the service's GraphQL
 * rule) or `scaleDown` (REST `DELETE /v1/endpoints/{id}`, whose reference has no such rule).
 * Jobs still queued are cancelled; the remaining workers are stopped.
 */
export function deleteEndpoint(deps: EndpointDeps, user: User, id: string, opts: { scaleDown?: boolean } = {}): void {
  const e = ownedEndpoint(deps.registry, user, id);
  if (!opts.scaleDown && (e.workersMin !== 0 || e.workersMax !== 0)) {
    throw new PreconditionFailedError(
      `endpoint ${id} has workersMin ${e.workersMin} and workersMax ${e.workersMax}; set both to 0 before deleting it`,
      { field: e.workersMax !== 0 ? 'workersMax' : 'workersMin' },
    );
  }
  deps.registry.deleteEndpoint(id);
  deps.engine.cancelQueued(id, `endpoint ${id} was deleted`);
}

/** A `templateId` an endpoint may use: visible to the caller and a serverless template. */
function checkTemplate(registry: Registry, user: User, templateId: string): void {
  const t = visibleTemplate(registry, user, templateId);
  if (!t) throw new BadRequestError(`templateId: template ${templateId} not found`, { field: 'templateId' });
  if (!t.isServerless) {
    throw new BadRequestError(
      `templateId: template ${templateId} is not a serverless template (create one with isServerless: true)`,
      { field: 'templateId' },
    );
  }
}
