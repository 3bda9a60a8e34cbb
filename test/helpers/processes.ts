/** Observing OS processes from tests (Linux /proc): the live members of a process group. */
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
