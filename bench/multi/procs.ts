/** bench/multi's processes: `sluice worker` daemons in their own process groups, and what /proc says about them (CPU, RSS, descendants). */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { stopProcessGroup } from '../../common/process';

const bin = join(__dirname, '..', '..', 'bin', 'sluice.cjs');
/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const HZ = 100;

/** A daemon process: its pid (the daemon itself: bin/sluice.cjs loads tsx in-process), its /metrics. */
export interface DaemonProcess {
  name: string;
  child: ChildProcess;
  pid: number;
  metricsUrl: string;
  stop(): Promise<void>;
}

/** Starts `sluice worker` with `env` in a new process group; resolves once it reports running. */
export async function startDaemon(name: string, env: Record<string, string>): Promise<DaemonProcess> {
  const child = spawn(process.execPath, [bin, 'worker'], {
    env: { ...process.env, SLUICE_LOG_LEVEL: 'warn', SLUICE_LOG_PRETTY: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  // SLUICE_BENCH_LOG=<file> (in `env`): the daemon's output appended there too, for reading after a run.
  const log = env.SLUICE_BENCH_LOG;
  const take = (d: Buffer): void => {
    out += d.toString();
    if (log) appendFileSync(log, d);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const stop = () => stopProcessGroup(child, 5000);
  for (let i = 0; !out.includes('sluice worker running'); i++) {
    if (i > 600 || child.exitCode !== null) {
      await stop();
      throw new Error(`daemon ${name} did not start: ${out.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name, child, pid: child.pid!, metricsUrl: `http://127.0.0.1:${env.SLUICE_DAEMON_PORT}/metrics`, stop };
}

/** Counter samples of a daemon's /metrics whose name is `name`, keyed by their label text (`op="write"`). */
export async function counters(metricsUrl: string, name: string): Promise<Record<string, number>> {
  const text = await (await request(metricsUrl)).body.text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} ([0-9.e+]+)$`, 'gm')))
    out[m[1]!] = (out[m[1]!] ?? 0) + Number(m[2]);
  return out;
}

/** User + system CPU seconds a process has used so far (0 when it is gone). */
export function cpuSeconds(pid: number): number {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / HZ;
  } catch {
    return 0;
  }
}

/** Peak (VmHWM) and current (VmRSS) resident memory of a process, MB. */
export function rssMb(pid: number): { peak: number; now: number } {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) / 1024;
    return { peak: Math.round(kb('VmHWM')), now: Math.round(kb('VmRSS')) };
  } catch {
    return { peak: 0, now: 0 };
  }
}

/** Live descendants of `root` whose command line matches `pattern`. */
export function descendants(root: number, pattern: RegExp): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const s = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const under = (pid: number): boolean => {
    for (let p = parent.get(pid), hops = 0; p !== undefined && hops < 64; p = parent.get(p), hops++)
      if (p === root) return true;
    return false;
  };
  return [...parent.keys()].filter((pid) => {
    if (!under(pid)) return false;
    try {
      return pattern.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '));
    } catch {
      return false;
    }
  });
}

/** Bytes a process has caused to be written to storage (/proc/<pid>/io `write_bytes`: page-cache writeback and fsync, not sockets); 0 when it is gone. */
export function diskWriteBytes(pid: number): number {
  try {
    return Number(/^write_bytes: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Files and bytes under a directory (recursively); 0 when it does not exist. */
export function treeSize(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { files, bytes };
  }
  for (const n of names) {
    const p = join(dir, n);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) {
      const sub = treeSize(p);
      files += sub.files;
      bytes += sub.bytes;
    } else {
      files += 1;
      bytes += st.size;
    }
  }
  return { files, bytes };
}

/** The 1-minute load average. */
export const load1 = (): number => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
