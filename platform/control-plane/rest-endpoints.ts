/** The REST spelling of endpoints (`/v1/endpoints`, RunPod's REST reference): input mapped onto saveEndpoint, output view. */
import {
  RestEndpointCreate,
  RestEndpointUpdate,
  type Endpoint,
  type PodIncludes,
  type RestEndpoint,
} from '../../contracts';
import { BadRequestError } from '../core/errors';
import { validate } from '../core/validate';
import { type WorkerPod } from '../pods/pod';
import { GPU_TIERS, tierOfGpuType, tiersOf } from './catalog';
import { DATA_CENTERS } from './data-centers';
import { saveEndpoint, type EndpointDeps } from './endpoints';
import { podView } from './pod-view';
import { toWireTemplate } from './templates';
import { type User } from './users';

const split = (v: string | undefined): string[] =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** The REST body as `saveEndpoint` input fields (GPU type names to tiers, lists to comma-separated strings). */
function toInput(body: RestEndpointUpdate): Record<string, unknown> {
  const {
    gpuTypeIds,
    dataCenterIds,
    allowedCudaVersions,
    flashboot,
    networkVolumeIds,
    cpuFlavorIds: _cpu,
    vcpuCount: _vcpu,
    ...same
  } = body;
  const input: Record<string, unknown> = { ...same };
  if (gpuTypeIds) {
    const tiers = gpuTypeIds.map((g) => ({ g, tier: tierOfGpuType(g) }));
    const unknown = tiers.filter((t) => !t.tier).map((t) => `"${t.g}"`);
    if (unknown.length > 0) {
      const known = Object.values(GPU_TIERS)
        .map((t) => t.gpuTypeId)
        .join(', ');
      throw new BadRequestError(`gpuTypeIds: unknown GPU type ${unknown.join(', ')}; the local catalog has ${known}`, {
        field: 'gpuTypeIds',
      });
    }
    input.gpuIds = [...new Set(tiers.map((t) => t.tier))].join(',');
  }
  if (dataCenterIds) input.locations = dataCenterIds.join(',');
  if (allowedCudaVersions) input.allowedCudaVersions = allowedCudaVersions.join(',');
  if (flashboot !== undefined) input.flashBootType = flashboot ? 'FLASHBOOT' : 'OFF';
  if (networkVolumeIds) input.networkVolumeIds = networkVolumeIds.map((networkVolumeId) => ({ networkVolumeId }));
  if (input.networkVolumeId === '') input.networkVolumeId = null;
  return input;
}

/** `POST /v1/endpoints`: a new endpoint of `user`. Defaults: a generated name, then those of `saveEndpoint` (the default GPU tier, anywhere). */
export function createRestEndpoint(deps: EndpointDeps, user: User, raw: unknown): Endpoint {
  const body = validate(RestEndpointCreate, raw);
  const input = toInput(body);
  input.name ??= `endpoint-${body.templateId}-${Date.now().toString(36)}`;
  return saveEndpoint(deps, user, input);
}

/** `PATCH /v1/endpoints/{id}`: only the given fields change (a release when the template or GPUs change). */
export function updateRestEndpoint(deps: EndpointDeps, user: User, id: string, raw: unknown): Endpoint {
  return saveEndpoint(deps, user, { ...toInput(validate(RestEndpointUpdate, raw)), id });
}

/** An endpoint as the REST reference's `Endpoint`; `template` and `workers` only when asked for. */
export function restEndpointView(
  e: Endpoint,
  deps: EndpointDeps & { podsOf: (endpointId: string) => WorkerPod[] },
  include: Pick<PodIncludes, 'template' | 'workers'>,
): RestEndpoint {
  const view: RestEndpoint = {
    id: e.id,
    name: e.name,
    userId: e.userId,
    templateId: e.templateId,
    version: e.version,
    computeType: e.computeType ?? 'GPU',
    ...(e.createdAt ? { createdAt: e.createdAt } : {}),
    // No locations: anywhere, which the reference shows as every data center.
    dataCenterIds: e.locations ? split(e.locations) : DATA_CENTERS.map((d) => d.id),
    env: {},
    executionTimeoutMs: e.executionTimeoutMs ?? 0,
    gpuCount: e.gpuCount ?? 1,
    gpuTypeIds: tiersOf(e.gpuIds).map((t) => GPU_TIERS[t].gpuTypeId),
    instanceIds: e.instanceIds ?? [],
    idleTimeout: e.idleTimeout,
    networkVolumeId: e.networkVolumeId,
    networkVolumeIds: e.networkVolumeIds ?? [],
    scalerType: e.scalerType,
    scalerValue: e.scalerValue,
    workersMax: e.workersMax,
    workersMin: e.workersMin,
    allowedCudaVersions: split(e.allowedCudaVersions),
    minCudaVersion: e.minCudaVersion ?? null,
  };
  if (include.template) {
    const t = deps.registry.template(e.templateId);
    if (t) view.template = toWireTemplate(t);
  }
  if (include.workers)
    view.workers = deps
      .podsOf(e.id)
      .filter((p) => p.phase !== 'exited')
      .map((p) => podView(p, deps.registry));
  return view;
}
