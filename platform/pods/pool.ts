/** The worker pool of every endpoint: its public face, wiring pod lifecycle, worker protocol, reconcile loop and counts. */
import { type Logger } from 'pino';
import { type Registry } from '../control-plane/registry';
import { type JobEngine } from '../jobs/engine';
import { type Job } from '../jobs/job';
import { CrashGuard } from './crash-guard';
import { type LocalImage } from './local-image';
import { defaultPodHomeDir, defaultPodUser } from './pod-user';
import { type PodUser } from './pod-process';
import { type WorkerPod } from './pod';
import { PodLifecycle } from './pod-lifecycle';
import { PodTable } from './pod-table';
import { type PoolParts } from './pool-parts';
import { Reconciler } from './reconciler';
import { runningWorkers, workerCounts, type WorkerCounts } from './worker-counts';
import { WorkerProtocol } from './worker-protocol';

/** Options of {@link PodPool}; durations in ms. */
export interface PodPoolOptions {
  /** The platform's base URL, known once it listens. */
  baseUrl: () => string;
  dataDir: string;
  logger: Logger;
  /**
   * Working directory of pod processes (a local image's pods run in its root).
   * @default each pod's own HOME when pods run as another user (see podUser), else process.cwd()
   */
  podCwd?: string;
  /**
   * The user pod processes run as. When the platform runs as root (the image), an unprivileged
   * one, so a template's command cannot read the platform's state (0700); otherwise the
   * platform's own user (a process of the same user can read that state: docs/platform.md).
   * `SLUICE_POD_UID`/`SLUICE_POD_GID` set it from the environment.
   * `null`: the platform's own user, even as root.
   * @default as root: nobody (65534:65534); else the platform's user
   */
  podUser?: PodUser | null;
  /**
   * Parent of the pods' HOME folders, outside the platform's state.
   * @default <os.tmpdir()>/sluice-pods-<uid>
   */
  podHomeDir?: string;
  /**
   * Simulated cold start before a pod's process starts.
   * @default 1000
   */
  coldStartMs?: number;
  /**
   * Cold start of endpoints with flashBootType FLASHBOOT.
   * @default 100
   */
  flashBootColdStartMs?: number;
  /**
   * Pods booting at once (launched, not ready yet, for at most 0.5 s each): the others wait their
   * turn (platform/pods/boot-gate.ts). 0: no limit.
   * @default the CPUs, at least 2
   */
  maxBooting?: number;
  /**
   * Time a stopping pod gets between SIGTERM and SIGKILL.
   * @default 10000
   */
  stopGraceMs?: number;
  /**
   * Period of the reconcile loop (scaler).
   * @default 200
   */
  reconcileIntervalMs?: number;
  /**
   * RUNPOD_PING_INTERVAL given to pods.
   * @default 10000
   */
  pingIntervalMs?: number;
  /**
   * Local stand-ins of container images by `imageName` (e.g. `runpod/mock-worker:latest`): the
   * folder and environment a pod of a template naming that image runs in.
   * @default {} (every command runs as given, in podCwd)
   */
  images?: Record<string, LocalImage>;
}

/** Starts, tracks and stops the worker processes of every endpoint, within workersMin..workersMax. */
export class PodPool {
  private readonly pods = new PodTable();
  private readonly lifecycle: PodLifecycle;
  private readonly protocol: WorkerProtocol;
  private readonly reconciler: Reconciler;

  /** Who the pods run as: undefined when they run as the platform's own user. */
  readonly podUser: PodUser | undefined;

  constructor(registry: Registry, engine: JobEngine, options: PodPoolOptions) {
    const podUser = options.podUser === null ? undefined : (options.podUser ?? defaultPodUser());
    this.podUser = podUser;
    const o = {
      coldStartMs: 1000,
      flashBootColdStartMs: 100,
      stopGraceMs: 10_000,
      reconcileIntervalMs: 200,
      pingIntervalMs: 10_000,
      images: {},
      podHomeDir: defaultPodHomeDir(),
      ...options,
      podUser,
      // Another user may not be able to enter the platform's working directory: its own HOME then.
      podCwd: options.podCwd ?? (podUser ? undefined : process.cwd()),
    };
    const crashes = new CrashGuard();
    const changed = (): void => this.reconciler.schedule();
    const parts: PoolParts = { pods: this.pods, registry, engine, crashes, changed };
    this.lifecycle = new PodLifecycle(parts, o);
    this.protocol = new WorkerProtocol(parts, this.lifecycle);
    this.reconciler = new Reconciler(parts, this.lifecycle, o.reconcileIntervalMs);
    engine.on('queued', changed);
    engine.on('released', (workerId, jobId) => this.protocol.released(workerId, jobId));
    engine.on('stop', (workerId, jobId) => this.protocol.requestStop(workerId, jobId));
    registry.on('endpoint', (e) => {
      crashes.release(e.id, e.version);
      // A release or a new worker count applies before the next request is served.
      this.reconciler.reconcileAll();
    });
    registry.on('endpointDeleted', (e) =>
      this.podsOf(e.id).forEach((p) => void this.lifecycle.stop(p, 'endpoint deleted')),
    );
  }

  start(): void {
    this.lifecycle.reapOrphans();
    this.lifecycle.watchOverPods();
    this.reconciler.start();
  }

  /** The pod `podId`, also for a while after it exited. */
  pod(podId: string): WorkerPod | undefined {
    return this.pods.get(podId);
  }

  /** Every pod tracked, exited ones included. */
  allPods(): WorkerPod[] {
    return this.pods.all();
  }

  podsOf(endpointId: string): WorkerPod[] {
    return this.pods.ofEndpoint(endpointId);
  }

  /** Tracks a pod the pool did not spawn (benchmarks' synthetic workers, which run no process). */
  register(pod: WorkerPod): void {
    this.pods.add(pod);
  }

  /** Live workers of the endpoint (for the dynamic rate limit). */
  runningWorkers(endpointId: string): number {
    return runningWorkers(this.podsOf(endpointId));
  }

  /** The `/health` workers block. */
  workerCounts(endpointId: string): WorkerCounts {
    return workerCounts(this.podsOf(endpointId));
  }

  /** A worker's `job-take`: marks it ready and long-polls the engine for up to `max` jobs. */
  take(pod: WorkerPod, max: number, waitMs: number, isAlive: () => boolean): Promise<Job[]> {
    return this.protocol.take(pod, max, waitMs, isAlive);
  }

  /** The worker hung up while `jobs` were handed to it: they go back to the head of the queue. */
  giveBack(pod: WorkerPod, jobs: Job[]): void {
    this.protocol.giveBack(pod, jobs);
  }

  /** A worker's `job-stop` long-poll: the ids of jobs it must stop, or [] after `waitMs`. */
  stopsFor(pod: WorkerPod, waitMs: number, signal: AbortSignal): Promise<string[]> {
    return this.protocol.stopsFor(pod, waitMs, signal);
  }

  /** The worker asked to be replaced after its job (`refresh_worker`). */
  refresh(pod: WorkerPod): void {
    this.protocol.refresh(pod);
  }

  /** A worker's ping; `running` lists the jobs it runs (undefined: the ping did not say). */
  ping(pod: WorkerPod, unhealthy: boolean, running?: string[]): void {
    this.protocol.ping(pod, unhealthy, running);
  }

  /** Reconciles every endpoint soon (coalesced). */
  schedule(): void {
    this.reconciler.schedule();
  }

  async close(): Promise<void> {
    this.reconciler.close();
    await this.lifecycle.close();
  }
}
