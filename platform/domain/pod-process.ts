import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';

/** What a worker pod's process is started with. */
export interface PodLaunch {
  podId: string;
  command: string[];
  env: Record<string, string>;
  cwd: string;
  /** The pod's own folder: HOME (so ~/.runpod of the host never leaks in) and its log file. */
  dir: string;
}

/** Host variables a pod inherits; everything else comes from its template and the platform. */
const INHERITED = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'SYSTEMROOT', 'NODE_EXTRA_CA_CERTS'];

/** Starts a pod's process in its own process group, stdout and stderr appended to `<dir>/pod.log`. */
export function launchPod(launch: PodLaunch): ChildProcess {
  mkdirSync(launch.dir, { recursive: true });
  const logFd = openSync(join(launch.dir, 'pod.log'), 'a');
  const env: Record<string, string> = {};
  for (const k of INHERITED) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  Object.assign(env, { HOME: launch.dir }, launch.env);
  const [cmd, ...args] = launch.command;
  try {
    return spawn(cmd!, args, { cwd: launch.cwd, env, stdio: ['ignore', logFd, logFd], detached: true });
  } finally {
    closeSync(logFd);
  }
}

/** Signals the pod's whole process group (wrappers like `tsx` or shells have children). */
export function signalPod(proc: ChildProcess, signal: NodeJS.Signals): void {
  if (proc.pid === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
  try {
    process.kill(-proc.pid, signal);
  } catch {
    try {
      proc.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
export function stopPodProcess(proc: ChildProcess, graceMs: number): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => signalPod(proc, 'SIGKILL'), graceMs);
    proc.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    signalPod(proc, 'SIGTERM');
  });
}
