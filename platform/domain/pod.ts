import { type ChildProcess } from 'node:child_process';

/** Lifecycle of a worker pod as the platform tracks it. */
export type PodPhase = 'starting' | 'initializing' | 'ready' | 'stopping' | 'exited';

/** A serverless worker: one OS process started from its endpoint's template. */
export interface WorkerPod {
  id: string;
  endpointId: string;
  userId: string;
  templateId: string;
  /** Endpoint version (slsVersion) the pod was started for. */
  version: number;
  /** Secret the pod authenticates its worker calls with (its RUNPOD_AI_API_KEY). */
  token: string;
  phase: PodPhase;
  proc?: ChildProcess;
  command: string[];
  env: Record<string, string>;
  /** Jobs the pod is running now. */
  jobs: Set<string>;
  /** Real time since the pod holds no job (idle timeout). */
  idleSince: number;
  /** No new jobs; stop once idle (scale-in, rolling release). */
  draining: boolean;
  unhealthy: boolean;
  /** Jobs the pod must stop, handed out by `job-stop`. */
  stopList: string[];
  stopWaiter?: () => void;
  createdAt: number;
  startedAt?: number;
  lastPingAt?: number;
  exit?: { code: number | null; signal: string | null; at: number };
  lastStatusChange: string;
}

export const isLive = (p: WorkerPod): boolean => p.phase !== 'stopping' && p.phase !== 'exited';
export const isIdle = (p: WorkerPod): boolean => p.phase === 'ready' && p.jobs.size === 0 && !p.draining;
export const isRunning = (p: WorkerPod): boolean => p.jobs.size > 0 && p.phase !== 'exited';
