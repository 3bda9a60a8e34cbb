/** Observing and signalling OS processes from tests (Linux /proc): a process group's live members, the processes a command line names. */
import { readdirSync, readFileSync } from 'node:fs';

/** Pids of the running (not zombie) processes of group `pgid`. */
export function liveGroupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') out.push(Number(pid));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** SIGKILLs group `pgid` if anything of it is left (test clean-up). */
export function killGroup(pgid: number | undefined): void {
  if (!pgid) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Pids of the running processes whose command line contains `text` (what `pkill -f text` would signal), this one excepted. */
export function processesMentioning(text: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)) {
    if (pid === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(text)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z') out.push(pid);
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Sends `signal` to each pid, ignoring those already gone. */
export function signalEach(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}
