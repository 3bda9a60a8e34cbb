/** The spec's Pod object of a worker, as REST and GraphQL show it, and `GET /v1/pods/{id}`. */
import { ENDPOINT_DEFAULTS, WORKER_ENV, type Pod, type PodIncludes } from '../../contracts';
import { costPerHr, gpuObject, machineIdOf, machineObject, networkVolumeObject, resourcesOf } from './hardware-objects';
import { desiredStatus, podSpec, type PodSpec, type WorkerPod } from '../pods/pod';
import { type Registry } from './registry';
import { toWireTemplate } from './templates';
import { ForbiddenError, NotFoundError } from '../core/errors';
import { SAFE_ID } from '../core/ids';
import { type User } from './users';

/** Shown instead of the pod's own worker key: it authenticates the worker protocol and stays secret. */
export const REDACTED = '<redacted>';

/**
 * The spec's Pod object of a worker, as it really runs: the template, GPU tier and placement
 * fixed at its spawn (so during a rolling release old and new pods differ), the environment
 * its process got, and its lifecycle. `include` adds the optional blocks of `GET /v1/pods/{id}`.
 */
export function podView(pod: WorkerPod, registry: Registry, include: PodIncludes = {}): Pod {
  const spec = pod.spec ?? specFromRegistry(pod, registry);
  const t = spec.template;
  const { vcpuCount, memoryInGb } = resourcesOf(spec.gpuTier, spec.gpuCount);
  const cost = costPerHr(spec.gpuTier, spec.gpuCount);
  const env = { ...pod.env };
  if (env[WORKER_ENV.apiKey] !== undefined) env[WORKER_ENV.apiKey] = REDACTED;
  const view: Pod = {
    id: pod.id,
    name: `${spec.endpointName} worker`.slice(0, 191),
    image: t.imageName,
    desiredStatus: desiredStatus(pod),
    // No savings plans exist locally, so nothing is deducted.
    adjustedCostPerHr: cost,
    costPerHr: cost,
    aiApiId: pod.endpointId,
    endpointId: pod.endpointId,
    slsVersion: pod.version,
    templateId: pod.templateId || null,
    consumerUserId: pod.userId,
    containerDiskInGb: t.containerDiskInGb,
    containerRegistryAuthId: t.containerRegistryAuthId ?? null,
    cpuFlavorId: null,
    dockerEntrypoint: [...t.dockerEntrypoint],
    dockerStartCmd: [...t.dockerStartCmd],
    env,
    gpu: gpuObject(spec.gpuTier, spec.gpuCount),
    interruptible: false,
    lastStartedAt: new Date(pod.startedAt ?? pod.createdAt).toISOString(),
    lastStatusChange: pod.lastStatusChange,
    locked: false,
    machineId: machineIdOf(spec.gpuTier, spec.dataCenterId),
    memoryInGb,
    // Nothing is exposed publicly: a local worker has no public IP or port mappings.
    portMappings: {},
    ports: [...t.ports],
    publicIp: null,
    vcpuCount,
    volumeEncrypted: false,
    volumeInGb: t.volumeInGb,
    volumeMountPath: t.volumeMountPath,
  };
  if (include.machine) view.machine = machineObject(spec.gpuTier, spec.gpuCount, spec.dataCenterId);
  if (include.networkVolume && spec.networkVolumeId)
    view.networkVolume = networkVolumeObject(spec.networkVolumeId, spec.dataCenterId);
  if (include.savingsPlans) view.savingsPlans = [];
  if (include.template) view.template = toWireTemplate(t);
  return view;
}

/** Pods registered without a spec (benchmarks' synthetic workers): described from the current registry. */
function specFromRegistry(pod: WorkerPod, registry: Registry): PodSpec {
  const template = registry.template(pod.templateId) ?? {
    id: pod.templateId,
    userId: pod.userId,
    name: '',
    imageName: '',
    category: 'CPU' as const,
    containerDiskInGb: 0,
    containerRegistryAuthId: null,
    dockerEntrypoint: [],
    dockerStartCmd: [...pod.command],
    env: {},
    isPublic: false,
    isRunpod: false,
    isServerless: true,
    ports: [],
    readme: '',
    earned: 0,
    runtimeInMin: 0,
    volumeInGb: 0,
    volumeMountPath: '/workspace',
  };
  const e = registry.endpoint(pod.endpointId) ?? {
    ...ENDPOINT_DEFAULTS,
    id: pod.endpointId,
    name: pod.endpointId,
    userId: pod.userId,
    gpuIds: 'AMPERE_16',
    templateId: pod.templateId,
    version: pod.version,
  };
  return podSpec(e, template);
}

/**
 * `GET /v1/pods/{podId}` for `user`: 404 when unknown, 401 when it is another user's. A worker
 * is returned without `include.workers`: the reference describes that flag as listing workers
 * too, a read by id names the pod, and locally every pod is a worker (runpodctl's `pod get`
 * cannot send the flag).
 */
export function readPod(
  findPod: (podId: string) => WorkerPod | undefined,
  registry: Registry,
  user: User,
  podId: string,
  include: PodIncludes,
): Pod {
  const pod = SAFE_ID.test(podId) ? findPod(podId) : undefined;
  if (!pod) throw new NotFoundError(`pod ${podId} not found`, { field: 'podId' });
  if (pod.userId !== user.id)
    throw new ForbiddenError(`podId: this API key has no access to pod ${podId}`, { field: 'podId' });
  return podView(pod, registry, include);
}
