/** Where sluice caches what it can rebuild (the workflow bundle, compiled code): outside the package, which may be a read-only node_modules. */
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageInfo } from './package-root';

/**
 * The cache dir: `SLUICE_CACHE_DIR`, else `$XDG_CACHE_HOME/sluice`, else `~/.cache/sluice`, else
 * `<os tmpdir>/sluice-cache` (no home). Never inside the package.
 */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SLUICE_CACHE_DIR) return env.SLUICE_CACHE_DIR;
  const { name } = packageInfo();
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, name);
  const home = homedir();
  return home ? join(home, '.cache', name) : join(tmpdir(), `${name}-cache`);
}
