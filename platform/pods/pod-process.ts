/** A pod's OS process: launch in its own process group, kill the whole group when it ends, reap orphan groups. */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { signalGroup } from '../../common/process';

/** What a worker pod's process is started with. */
export interface PodLaunch {
  podId: string;
  command: string[];
  env: Record<string, string>;
  cwd: string;
  /** The platform's folder of the pod (0700, inside its state): the log file and the pid file. */
  dir: string;
  /** The pod's HOME (so ~/.runpod of the host never leaks in), outside the platform's state; removed when it exits. */
  home: string;
  /** The user the process runs as (the platform runs as root); undefined: the platform's own. */
  user?: PodUser;
}

/** An unprivileged user for worker pods. */
export interface PodUser {
  uid: number;
  gid: number;
}

/** Host variables a pod inherits; everything else comes from its template and the platform. */
const INHERITED = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'SYSTEMROOT', 'NODE_EXTRA_CA_CERTS'];

/**
 * Starts a pod's process in its own process group, stdout and stderr appended to `<dir>/pod.log`.
 * The group id goes to `<dir>/pid`; when the leader exits, for whatever reason, the whole group is
 * SIGKILLed (the stock Python SDK's heartbeat runs in a child process that would otherwise keep
 * pinging) and only then is the file removed, so a platform that dies before that can reap it.
 */
export function launchPod(launch: PodLaunch): ChildProcess {
  mkdirSync(launch.dir, { recursive: true, mode: 0o700 });
  makeHome(launch.home, launch.user);
  // Opened by the platform and handed over as stdout: the pod writes its log without being able to open it.
  const logFd = openSync(join(launch.dir, 'pod.log'), 'a', 0o600);
  const env: Record<string, string> = {};
  for (const k of INHERITED) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  Object.assign(env, { HOME: launch.home }, launch.env);
  const [cmd, ...args] = launch.command;
  const pidFile = join(launch.dir, 'pid');
  try {
    const proc = spawn(cmd!, args, {
      cwd: launch.cwd,
      env,
      stdio: ['ignore', logFd, logFd],
      detached: true,
      ...(launch.user ? { uid: launch.user.uid, gid: launch.user.gid } : {}),
    });
    if (proc.pid !== undefined) writeFileSync(pidFile, String(proc.pid), { mode: 0o600 });
    proc.once('exit', () => {
      signalGroup(proc, 'SIGKILL');
      rmSync(pidFile, { force: true });
      rmSync(launch.home, { recursive: true, force: true });
    });
    return proc;
  } finally {
    closeSync(logFd);
  }
}

/** The pod's HOME: 0700, owned by the pod's user; its parent can be crossed but not listed. */
function makeHome(home: string, user: PodUser | undefined): void {
  const parent = dirname(home);
  mkdirSync(parent, { recursive: true, mode: 0o711 });
  chmodSync(parent, 0o711);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  if (user) chownSync(home, user.uid, user.gid);
}

/** Pids in process group `pgid` (from /proc), or undefined where /proc cannot tell. */
export function groupMembers(pgid: number): number[] | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return undefined;
  }
  const members: number[] = [];
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) members.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return members;
}

/** True when some process of group `pgid` is pod `podId`'s (its environment names the pod); true where /proc cannot tell. */
function isPodGroup(pgid: number, podId: string): boolean {
  const members = groupMembers(pgid);
  if (members === undefined) return true;
  return members.some((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`RUNPOD_POD_ID=${podId}`);
    } catch {
      return false;
    }
  });
}

/**
 * Kills the process groups of pods a crashed platform left running, leaders or not (an orphaned
 * heartbeat child keeps its group); returns how many groups. A group id reused by an unrelated
 * process since is left alone.
 */
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
    let pgid: number;
    try {
      pgid = Number(readFileSync(pidFile, 'utf8'));
    } catch {
      continue;
    }
    try {
      if (Number.isInteger(pgid) && pgid > 1 && isPodGroup(pgid, id)) {
        process.kill(-pgid, 'SIGKILL');
        n++;
      }
    } catch {
      // not running any more
    }
    rmSync(pidFile, { force: true });
  }
  return n;
}
