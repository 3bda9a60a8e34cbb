/** Child processes in their own process group, stopped as a whole (wrappers like tsx or shells have children). */
import { type ChildProcess } from 'node:child_process';

/** True once the process has exited (or was never started). */
export const hasExited = (proc: ChildProcess): boolean =>
  proc.pid === undefined || proc.exitCode !== null || proc.signalCode !== null;

/**
 * Signals the whole process group led by `proc` (spawned with `detached: true`); a group
 * outlives its leader, so this is tried even after the leader exited.
 */
export function signalGroup(proc: ChildProcess, signal: NodeJS.Signals): void {
  if (proc.pid === undefined) return;
  try {
    process.kill(-proc.pid, signal);
  } catch {
    if (hasExited(proc)) return;
    try {
      proc.kill(signal);
    } catch {
      // already gone
    }
  }
}

/**
 * SIGTERM to the group, then SIGKILL after `graceMs`; resolves when the leader has exited. The
 * group is SIGKILLed at the end in every case, so no child (a heartbeat process, a server the
 * leader started) is left behind.
 */
export function stopProcessGroup(proc: ChildProcess, graceMs: number): Promise<void> {
  const done = (): void => signalGroup(proc, 'SIGKILL');
  if (hasExited(proc)) {
    done();
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const kill = setTimeout(done, graceMs);
    proc.once('exit', () => {
      clearTimeout(kill);
      done();
      resolve();
    });
    signalGroup(proc, 'SIGTERM');
  });
}
