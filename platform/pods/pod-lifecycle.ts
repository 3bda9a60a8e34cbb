/** A worker pod's life: spawned after its cold start, its process launched, drained, stopped, and its exit handled. */
import { join } from 'node:path';
import { type Logger } from 'pino';
import { type Endpoint } from '../../contracts';
import { apiKey, shortId } from '../core/ids';
import { podSpec, type WorkerPod } from './pod';
import { type ChildProcess } from 'node:child_process';
import { stopProcessGroup } from '../../common/process';
import { spawnGroupReaper } from '../../common/watchdog';
import { resolveLaunch, type LocalImage } from './local-image';
import { BootGate } from './boot-gate';
import { launchPod, reapOrphans, type PodUser } from './pod-process';
import { type PoolParts } from './pool-parts';
import { StopOrders } from './stop-orders';
import { workerEnv } from './worker-env';

/** The pool's settings a pod's life depends on, defaults applied; durations in ms. */
export interface LifecycleSettings {
  baseUrl: () => string;
  dataDir: string;
  logger: Logger;
  /** Working directory of pods without a local image; undefined: their HOME. */
  podCwd: string | undefined;
  podUser: PodUser | undefined;
  podHomeDir: string;
  coldStartMs: number;
  flashBootColdStartMs: number;
  stopGraceMs: number;
  pingIntervalMs: number;
  images: Record<string, LocalImage>;
  /** Pods booting at once (platform/pods/boot-gate.ts; 0: no limit; undefined: the CPUs, at least 2). */
  maxBooting?: number | undefined;
}

/** Starts and stops pods, and handles their exits. */
export class PodLifecycle {
  private closed = false;
  private reaper?: ChildProcess;
  /** Launches pods a few at a time: each loads its runtime on the same CPUs. */
  private readonly gate: BootGate<WorkerPod>;

  constructor(
    private readonly parts: PoolParts,
    private readonly o: LifecycleSettings,
  ) {
    this.gate = new BootGate((pod) => this.launch(pod), o.maxBooting !== undefined ? { max: o.maxBooting } : {});
  }

  /** Workers die with the platform even when it is SIGKILLed: a reaper process watches over their groups. */
  watchOverPods(): void {
    this.reaper = spawnGroupReaper(join(this.o.dataDir, 'pods'), this.o.stopGraceMs);
  }

  /** Kills the workers a previous platform process left running (at start). */
  reapOrphans(): void {
    const orphans = reapOrphans(join(this.o.dataDir, 'pods'));
    if (orphans > 0) this.o.logger.warn({ orphans }, 'killed workers left behind by a previous platform process');
  }

  /** A new pod of endpoint `e`; its process starts after the (simulated) cold start. */
  spawn(e: Endpoint): void {
    const template = this.parts.registry.template(e.templateId);
    if (!template) return;
    const command = [...template.dockerEntrypoint, ...template.dockerStartCmd];
    if (command.length === 0) {
      this.o.logger.error({ endpointId: e.id, templateId: template.id }, 'template has no command to run');
      return;
    }
    const id = shortId(14);
    const now = Date.now();
    // The template is read here, once: the pod runs this command for its whole life.
    const spec = podSpec(e, template);
    const pod: WorkerPod = {
      id,
      endpointId: e.id,
      userId: e.userId,
      templateId: template.id,
      version: e.version,
      token: apiKey(),
      phase: 'starting',
      command,
      env: {},
      jobs: new Set(),
      idleSince: now,
      draining: false,
      unhealthy: false,
      stops: new StopOrders(),
      createdAt: now,
      lastStatusChange: `Create worker at ${new Date(now).toISOString()}`,
      spec,
    };
    // The image's ENV, then the template's env, then the worker variables (as in a container).
    const image = resolveLaunch(command, this.o.images[template.imageName], this.o.podCwd ?? this.homeOf(id));
    pod.command = image.command;
    pod.cwd = image.cwd;
    pod.env = { ...image.env, ...template.env, ...workerEnv(this.o.baseUrl(), e.id, pod, this.o.pingIntervalMs) };
    this.parts.pods.add(pod);
    const delay = e.flashBootType === 'FLASHBOOT' ? this.o.flashBootColdStartMs : this.o.coldStartMs;
    setTimeout(() => this.gate.admit(pod), delay).unref();
  }

  /** The pod's worker took its first job (ready): the next pod may boot. */
  booted(pod: WorkerPod): void {
    this.gate.done(pod);
  }

  /** No new jobs for the pod; it stops once idle (scale-in, rolling release, refresh). */
  drain(pod: WorkerPod, why: string): void {
    if (pod.draining) return;
    pod.draining = true;
    pod.lastStatusChange = `Draining (${why}) at ${new Date().toISOString()}`;
    this.o.logger.info({ podId: pod.id, endpointId: pod.endpointId, why }, 'worker draining');
    if (pod.jobs.size === 0) void this.stop(pod, why);
  }

  /** SIGTERM, then SIGKILL after the grace time; resolves once the process is gone. */
  async stop(pod: WorkerPod, why: string): Promise<void> {
    if (pod.phase === 'exited' || pod.phase === 'stopping') return;
    const hadProcess = pod.proc !== undefined;
    pod.phase = 'stopping';
    pod.lastStatusChange = `Stopping (${why}) at ${new Date().toISOString()}`;
    // Answer its pending long-polls now: the stock SDK only exits once they return.
    pod.stops.release();
    this.parts.engine.cancelTakes(pod.endpointId, pod.id);
    if (hadProcess) await stopProcessGroup(pod.proc!, this.o.stopGraceMs);
    else this.exited(pod, 0, null);
  }

  /** The platform shuts down: nothing more is launched and every pod is stopped. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.parts.pods.all().map((p) => this.stop(p, 'platform shutting down')));
    this.reaper?.kill('SIGTERM');
  }

  private homeOf(podId: string): string {
    return join(this.o.podHomeDir, podId);
  }

  private launch(pod: WorkerPod): void {
    if (pod.phase !== 'starting' || this.closed) return this.gate.done(pod);
    const proc = launchPod({
      podId: pod.id,
      command: pod.command,
      env: pod.env,
      cwd: pod.cwd ?? this.o.podCwd ?? this.homeOf(pod.id),
      dir: join(this.o.dataDir, 'pods', pod.id),
      home: this.homeOf(pod.id),
      ...(this.o.podUser ? { user: this.o.podUser } : {}),
    });
    pod.proc = proc;
    pod.phase = 'initializing';
    pod.startedAt = Date.now();
    pod.lastStatusChange = `Start worker at ${new Date().toISOString()}`;
    this.o.logger.info(
      { podId: pod.id, endpointId: pod.endpointId, version: pod.version, pid: proc.pid },
      'worker started',
    );
    proc.on('error', (err) => this.o.logger.error({ podId: pod.id, err: err.message }, 'worker failed to start'));
    proc.on('exit', (code, signal) => this.exited(pod, code, signal));
  }

  private exited(pod: WorkerPod, code: number | null, signal: string | null): void {
    this.gate.done(pod);
    const expected = pod.phase === 'stopping';
    const beforeReady = pod.phase !== 'ready';
    pod.phase = 'exited';
    pod.exit = { code, signal, at: Date.now() };
    pod.lastStatusChange = `Exited (code ${code}, signal ${signal}) at ${new Date().toISOString()}`;
    const error = this.closed
      ? 'the platform shut down while this job was running; retry it with /retry'
      : `worker ${pod.id} exited (code ${code}, signal ${signal}) while running the job`;
    this.parts.engine.workerLost(pod.id, pod.jobs, error);
    pod.jobs.clear();
    if (!expected) {
      pod.crashed = true;
      this.parts.crashes.crashed(pod.endpointId, Date.now() - (pod.startedAt ?? 0), beforeReady, Date.now());
      this.o.logger.warn({ podId: pod.id, endpointId: pod.endpointId, code, signal }, 'worker exited unexpectedly');
    }
    // Exited pods stay readable (REST) for a while, then are forgotten.
    setTimeout(() => this.parts.pods.forget(pod.id), 60_000).unref();
    this.parts.changed();
  }
}
