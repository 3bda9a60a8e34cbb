/** A worker pod as the platform tracks it: phases, spec fixed at spawn, desiredStatus. */
import { type ChildProcess } from 'node:child_process';
import { type StopOrders } from './stop-orders';
import { type Endpoint, type GpuTierId, type PodDesiredStatus } from '../../contracts';
import { tiersOf } from '../control-plane/catalog';
import { placeIn } from '../control-plane/data-centers';
import { type StoredTemplate } from '../control-plane/registry';

/** Lifecycle of a worker pod as the platform tracks it. */
export type PodPhase = 'starting' | 'initializing' | 'ready' | 'stopping' | 'exited';

/**
 * What a pod was built from, fixed when it is spawned: a template or endpoint change later
 * reaches only the pods of the next release.
 */
export interface PodSpec {
  /** The template as it was at spawn time. */
  template: StoredTemplate;
  endpointName: string;
  gpuTier: GpuTierId;
  gpuCount: number;
  dataCenterId: string;
  networkVolumeId: string | null;
}

/** The spec of a pod of endpoint `e` started from `template` now: the first GPU tier listed, the first matching data center. */
export function podSpec(e: Endpoint, template: StoredTemplate): PodSpec {
  return {
    template: { ...template, env: { ...template.env } },
    endpointName: e.name,
    gpuTier: tiersOf(e.gpuIds)[0] ?? 'AMPERE_16',
    gpuCount: e.gpuCount ?? 1,
    dataCenterId: placeIn(e.locations).id,
    networkVolumeId: e.networkVolumeId,
  };
}

/** A serverless worker: one OS process started from its endpoint's template. */
export interface WorkerPod {
  id: string;
  endpointId: string;
  userId: string;
  templateId: string;
  /** Endpoint version (slsVersion) the pod was started for. */
  version: number;
  /** Secret the pod authenticates its worker calls with (its RUNPOD_AI_API_KEY); in memory only, compared in constant time. */
  token: string;
  phase: PodPhase;
  proc?: ChildProcess;
  command: string[];
  /** Working directory of the process (its local image's root, else the pool's podCwd). */
  cwd?: string;
  env: Record<string, string>;
  /** Jobs the pod is running now. */
  jobs: Set<string>;
  /** Real time since the pod holds no job (idle timeout). */
  idleSince: number;
  /** No new jobs; stop once idle (scale-in, rolling release). */
  draining: boolean;
  unhealthy: boolean;
  /** Jobs the pod must stop, handed out by `job-stop`. */
  stops: StopOrders;
  createdAt: number;
  startedAt?: number;
  /** When the process first asked for a job (its command works). */
  readyAt?: number;
  lastPingAt?: number;
  exit?: { code: number | null; signal: string | null; at: number };
  lastStatusChange: string;
  /** Absent only on synthetic pods registered by benchmarks. */
  spec?: PodSpec;
  /** The process exited without being asked to (crash or handler exit). */
  crashed?: boolean;
}

export const isLive = (p: WorkerPod): boolean => p.phase !== 'stopping' && p.phase !== 'exited';
export const isIdle = (p: WorkerPod): boolean => p.phase === 'ready' && p.jobs.size === 0 && !p.draining;
export const isRunning = (p: WorkerPod): boolean => p.jobs.size > 0 && p.phase !== 'exited';

/**
 * The spec's desiredStatus of a worker: RUNNING while it is (or will be) serving; TERMINATED once
 * the platform decided to stop it (workers are never restarted: a replacement is a new pod);
 * EXITED when its process ended on its own.
 */
export function desiredStatus(p: WorkerPod): PodDesiredStatus {
  if (p.phase === 'exited') return p.crashed ? 'EXITED' : 'TERMINATED';
  return p.phase === 'stopping' ? 'TERMINATED' : 'RUNNING';
}
