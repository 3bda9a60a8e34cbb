/** Shared bits of the interop tests: the project's Python venv and a runner for its scripts. */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Platform } from '../../platform';

export const projectRoot = resolve(__dirname, '..', '..');
/** The venv `npm install` creates (scripts/install-tools.mjs) with PyPI `runpod==1.12.0`. */
export const venvPython = join(projectRoot, '.tools', 'venv', 'bin', 'python');
export const pyDir = join(__dirname, 'py');

/** Throws (so the tests fail, not skip) when the venv is missing. */
export function requireVenvPython(): string {
  if (!existsSync(venvPython)) {
    throw new Error(
      `${venvPython} is missing: run \`npm install\` in ${projectRoot} (its postinstall creates .tools/venv with runpod==1.12.0)`,
    );
  }
  return venvPython;
}

/** A throw-away HOME, so no ~/.runpod/config.toml of the host reaches the Python SDK. */
export function isolatedHome(): { dir: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-interop-home-'));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Runs `py/<script>` with the venv's python and `args`; resolves with the JSON object the
 * script prints as its last stdout line. The error names stdout and stderr on failure.
 */
export function runPython(
  script: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<any> {
  const python = requireVenvPython();
  return new Promise((resolvePromise, reject) => {
    execFile(
      python,
      ['-u', join(pyDir, script), ...args],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const lines = stdout.trim().split('\n');
        const last = lines[lines.length - 1] ?? '';
        if (err) {
          reject(
            new Error(
              `${script} ${args.join(' ')} failed: ${err.message}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`,
            ),
          );
          return;
        }
        try {
          resolvePromise(JSON.parse(last));
        } catch {
          reject(new Error(`${script} printed no JSON summary\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`));
        }
      },
    );
  });
}

/** The last lines of the logs of an endpoint's pods (to explain a failing worker test). */
export function podLogs(platform: Platform & { dataDir: string }, endpointId: string, lines = 40): string {
  const dir = join(platform.dataDir, 'pods');
  if (!existsSync(dir)) return '(no pod logs)';
  const ids = new Set(platform.pool.podsOf(endpointId).map((p) => p.id));
  return (
    readdirSync(dir)
      .filter((id) => ids.has(id))
      .map((id) => {
        const file = join(dir, id, 'pod.log');
        const text = existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n') : '(empty)';
        return `--- pod ${id} ---\n${text}`;
      })
      .join('\n') || '(no pods)'
  );
}
