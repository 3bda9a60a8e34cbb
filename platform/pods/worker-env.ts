/** The environment of the stock RunPod worker inside a pod. */
import { WORKER_ENV } from '../../contracts';
import { resourcesOf } from '../control-plane/hardware-objects';
import { type WorkerPod } from './pod';

/**
 * The environment of the stock RunPod worker: URLs of the worker protocol with the pod id
 * already in place (the take URL only substitutes `$ID`), each with a `?` because the SDK
 * appends `&...`.
 */
export function workerEnv(
  baseUrl: string,
  endpointId: string,
  pod: WorkerPod,
  pingIntervalMs: number,
): Record<string, string> {
  const ep = `${baseUrl}/v2/${endpointId}`;
  // The counts the pod reports through REST (its simulated machine), so both views agree.
  const gpus = pod.spec?.gpuCount ?? 1;
  const cpus = pod.spec ? resourcesOf(pod.spec.gpuTier, gpus).vcpuCount : 2;
  return {
    [WORKER_ENV.takeUrl]: `${ep}/job-take/${pod.id}?gpu=local`,
    [WORKER_ENV.doneUrl]: `${ep}/job-done/${pod.id}/$ID?gpu=local`,
    [WORKER_ENV.streamUrl]: `${ep}/job-stream/${pod.id}/$ID?gpu=local`,
    [WORKER_ENV.pingUrl]: `${ep}/ping/${pod.id}`,
    [WORKER_ENV.podId]: pod.id,
    [WORKER_ENV.endpointId]: endpointId,
    [WORKER_ENV.apiKey]: pod.token,
    [WORKER_ENV.pingInterval]: String(pingIntervalMs),
    RUNPOD_POD_HOSTNAME: `${pod.id}-local`,
    RUNPOD_GPU_COUNT: String(gpus),
    RUNPOD_CPU_COUNT: String(cpus),
    ...(pod.spec ? { RUNPOD_DC_ID: pod.spec.dataCenterId } : {}),
    // The stock SDK's fitness checks (4 GB RAM, disk, DNS to 8.8.8.8, GPU) make no sense on a local host.
    RUNPOD_SKIP_AUTO_SYSTEM_CHECKS: 'true',
    RUNPOD_SKIP_GPU_CHECK: 'true',
    PYTHONUNBUFFERED: '1',
  };
}
