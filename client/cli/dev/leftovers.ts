/** Finds the Temporal dev servers of a data dir (by their command line in /proc) and stops those whose `sluice` is gone. */
import { readdirSync, readFileSync } from 'node:fs';
import { DataDirInUseError } from '../errors';

/** A process of the data dir's server: the supervisor (`node -e ... <parent pid> ...`) or `temporal server start-dev`. */
interface ServerProcess {
  pid: number;
  ppid: number;
  /** For a supervisor: the pid of the `sluice` that started it. */
  owner?: number;
}

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** Parent pid and state (`Z`: a zombie, as good as gone) from /proc/<pid>/stat. */
function stat(pid: number): { ppid: number; state: string } | undefined {
  const s = readProc(pid, 'stat');
  const m = s ? /\) (\S) (\d+)/.exec(s) : null;
  return m ? { state: m[1]!, ppid: Number(m[2]) } : undefined;
}

const alive = (pid: number): boolean => {
  const s = stat(pid);
  return s !== undefined && s.state !== 'Z';
};

/** Every live process whose command line runs `start-dev` on this SQLite file (Linux; elsewhere none). */
export function serverProcesses(dbFile: string): ServerProcess[] {
  let pids: number[];
  try {
    pids = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
  } catch {
    return [];
  }
  const out: ServerProcess[] = [];
  for (const pid of pids) {
    if (pid === process.pid) continue;
    const argv = readProc(pid, 'cmdline')?.split('\0') ?? [];
    const db = argv.indexOf('--db-filename');
    if (!argv.includes('start-dev') || db < 0 || argv[db + 1] !== dbFile) continue;
    const st = stat(pid);
    if (!st || st.state === 'Z') continue;
    const sep = argv[1] === '-e' ? argv.indexOf('--') : -1;
    out.push({ pid, ppid: st.ppid, ...(sep > 0 ? { owner: Number(argv[sep + 1]) } : {}) });
  }
  return out;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // gone already
  }
}

/**
 * Stops the leftover servers of `dbFile` — those left by a `sluice` that died (SIGKILL, a crash)
 * or by an older version — with SIGTERM, then SIGKILL after `graceMs`. A server whose `sluice`
 * still runs is not a leftover: that throws {@link DataDirInUseError}. Resolves with the pids stopped.
 */
export async function stopLeftoverServers(dbFile: string, dataDir: string, graceMs = 5000): Promise<number[]> {
  const found = serverProcesses(dbFile);
  const running = found.find((p) => p.owner !== undefined && p.ppid === p.owner && alive(p.owner));
  if (running) throw new DataDirInUseError(dataDir, running.owner!);
  if (found.length === 0) return [];
  for (const p of found) signal(p.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (found.some((p) => alive(p.pid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const p of found) if (alive(p.pid)) signal(p.pid, 'SIGKILL');
  while (found.some((p) => alive(p.pid)) && Date.now() < deadline + 2000) await new Promise((r) => setTimeout(r, 50));
  return found.map((p) => p.pid);
}
