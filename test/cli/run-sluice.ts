/** Runs the real `sluice` command (bin/sluice.cjs) as a child process, for the CLI tests. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { stopProcessGroup } from '../../common/process';

export const bin = join(__dirname, '..', '..', 'bin', 'sluice.cjs');

/** The environment without any sluice or Temporal variable of the machine running the tests. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('SLUICE_') && !k.startsWith('TEMPORAL_')),
  );
  return { ...env, SLUICE_LOG_LEVEL: 'warn', SLUICE_LOG_PRETTY: '0', ...extra };
}

/** What {@link stackEnv} reads of a test stack (orchestratorStack's). */
export interface CliStack {
  env: { address: string };
  platform: { url: string; apiKey: string };
  resultsDir: string;
}

/** A {@link cleanEnv} whose `sluice` reaches stack `s`: its Temporal, platform (queue and GraphQL) and results dir; `extra` over it. */
export function stackEnv(s: CliStack, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cleanEnv({
    TEMPORAL_ADDRESS: s.env.address,
    SLUICE_QUEUE_URL: `${s.platform.url}/v2`,
    SLUICE_GRAPHQL_URL: `${s.platform.url}/graphql`,
    SLUICE_API_KEY: s.platform.apiKey,
    SLUICE_RESULTS_DIR: s.resultsDir,
    ...extra,
  });
}

/** Runs `sluice ...args` to its end. */
export function sluice(args: string[], o: { env?: NodeJS.ProcessEnv; cwd?: string; timeout?: number } = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: o.env ?? cleanEnv(), cwd: o.cwd, timeout: o.timeout ?? 60_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

/** Starts a long-running `sluice ...args` (dev, worker) in its own process group; `stop()` ends the group. */
export function startSluice(args: string[], env: NodeJS.ProcessEnv, cwd?: string) {
  const child: ChildProcess = spawn(process.execPath, [bin, ...args], {
    env,
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return {
    child,
    get output() {
      return out;
    },
    /** Resolves with the first match of `re` in the output; rejects if the process exits first or after `ms`. */
    waitFor(re: RegExp, ms = 90_000): Promise<RegExpExecArray> {
      const deadline = Date.now() + ms;
      return new Promise((resolve, reject) => {
        const tick = (): void => {
          const m = re.exec(out);
          if (m) return resolve(m);
          if (child.exitCode !== null || child.signalCode !== null)
            return reject(
              new Error(
                `sluice ${args.join(' ')} exited (${child.exitCode ?? child.signalCode}) before ${re}:\n${out}`,
              ),
            );
          if (Date.now() > deadline) return reject(new Error(`no ${re} within ${ms} ms:\n${out}`));
          setTimeout(tick, 100);
        };
        tick();
      });
    },
    stop: () => stopProcessGroup(child, 20_000),
  };
}
