/** A pod's OS process: launch in its own process group, stop (SIGTERM then SIGKILL), reap orphans. */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    const proc = spawn(cmd!, args, { cwd: launch.cwd, env, stdio: ['ignore', logFd, logFd], detached: true });
    // The pid file lets a platform restarted after a crash reap the workers it left behind.
    if (proc.pid !== undefined) writeFileSync(join(launch.dir, 'pid'), String(proc.pid));
    proc.once('exit', () => rmSync(join(launch.dir, 'pid'), { force: true }));
    return proc;
  } finally {
    closeSync(logFd);
  }
}

/** Kills the process groups of pods a crashed platform left running; returns how many. */
export function reapOrphans(podsDir: string): number {
  let n = 0;
  let entries: string[];
  try {
    entries = readdirSync(podsDir);
  } catch {
    return 0;
  }
  for (const id of entries) {
    const pidFile = join(podsDir, id, 'pid');
    let pid: number;
    try {
      pid = Number(readFileSync(pidFile, 'utf8'));
    } catch {
      continue;
    }
    try {
      if (Number.isInteger(pid) && pid > 1) {
        process.kill(-pid, 'SIGKILL');
        n++;
      }
    } catch {
      // not running any more
    }
    rmSync(pidFile, { force: true });
  }
  return n;
}
