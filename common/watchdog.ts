/** A child process that dies with its parent: a tiny Node supervisor stops it when the parent is gone, even after a SIGKILL. */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** How often the supervisor looks at its parent, ms. */
const POLL_MS = 500;

/**
 * The supervisor (run with `node -e`): starts the command in its own process group, exits with
 * it, and stops it (SIGTERM, SIGKILL after `grace` ms) once its parent pid changes — the parent
 * exited or was killed, and the supervisor was re-parented. Signals sent to the group reach the
 * command directly; the supervisor ignores them and waits for the command to exit.
 */
const SUPERVISOR = `
const { spawn } = require('node:child_process');
const [parent, grace, cmd, ...args] = process.argv.slice(1);
const child = spawn(cmd, args, { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
child.on('error', (err) => { console.error(String(err)); process.exit(127); });
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => undefined);
const timer = setInterval(() => {
  if (String(process.ppid) === parent) return;
  clearInterval(timer);
  child.kill('SIGTERM');
  setTimeout(() => child.kill('SIGKILL'), Number(grace)).unref();
}, ${POLL_MS});
`;

/** Options of {@link spawnWatched}. */
export interface WatchedOptions {
  /** Where the supervisor and the command write (as `spawn`'s stdio). @default 'ignore' */
  stdio?: SpawnOptions['stdio'];
  /** Grace between SIGTERM and SIGKILL when the parent is gone, ms. @default 5000 */
  graceMs?: number;
  /** Environment of the supervisor and the command. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/**
 * Spawns `cmd args` under a supervisor in a new process group (stop it with `stopProcessGroup`).
 * The returned process is the supervisor: it exits when the command exits, and the command is
 * stopped within ~0.5 s + grace of this process dying by any means.
 */
export function spawnWatched(cmd: string, args: string[], o: WatchedOptions = {}): ChildProcess {
  return spawn(
    process.execPath,
    ['-e', SUPERVISOR, '--', String(process.pid), String(o.graceMs ?? 5000), cmd, ...args],
    {
      stdio: o.stdio ?? 'ignore',
      detached: true,
      ...(o.env ? { env: o.env } : {}),
    },
  );
}

/**
 * The group reaper (run with `node -e`): once its parent is gone (even SIGKILLed), it stops every
 * process group whose id is in a `<dir>/<name>/pid` file then (SIGTERM, then SIGKILL after `grace`
 * to the same groups: a platform restarted on the same directory meanwhile lists its own new
 * workers there, which must live).
 */
const GROUP_REAPER = `
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const [parent, grace, dir] = process.argv.slice(1);
const groups = () => {
  let names = [];
  try { names = readdirSync(dir); } catch { return []; }
  return names.map((n) => { try { return Number(readFileSync(join(dir, n, 'pid'), 'utf8')); } catch { return 0; } }).filter((g) => g > 1);
};
const signal = (gs, s) => { for (const g of gs) { try { process.kill(-g, s); } catch {} } };
process.on('SIGTERM', () => process.exit(0));
const timer = setInterval(() => {
  if (String(process.ppid) === parent) return;
  clearInterval(timer);
  const gs = groups();
  signal(gs, 'SIGTERM');
  setTimeout(() => { signal(gs, 'SIGKILL'); process.exit(0); }, Number(grace));
}, ${POLL_MS});
`;

/**
 * Spawns the group reaper for the process groups listed under `dir` (one `pid` file per
 * subfolder). Kill it (SIGTERM) when the groups are stopped the normal way.
 */
export function spawnGroupReaper(dir: string, graceMs = 5000): ChildProcess {
  const reaper = spawn(process.execPath, ['-e', GROUP_REAPER, '--', String(process.pid), String(graceMs), dir], {
    stdio: 'ignore',
    detached: true,
  });
  reaper.unref();
  return reaper;
}
