/** The prebuilt workflow bundle, cached per version of the workflow code, outside the package's own folder. */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { cacheDir } from '../common/cache-dir';
import { codeRoot } from '../common/package-root';

/** Every file under `dir`, recursively, as sorted `/`-separated paths relative to `base`. */
function filesUnder(base: string, dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(base, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

/**
 * Key of the workflow code under `root` (the sources, or the compiled `dist/`): the SDK's workflow
 * runtime version and every file under `workflows/` and `contracts/` (subfolders included), by
 * relative path and content.
 */
export function sourceHash(root = codeRoot): string {
  const h = createHash('sha256');
  // The SDK's workflow runtime is bundled too: another version needs another bundle.
  h.update(readFileSync(require.resolve('@temporalio/workflow/package.json')));
  for (const dir of ['workflows', 'contracts']) {
    for (const f of filesUnder(root, join(root, dir))) {
      h.update(`\0${f}\0`).update(readFileSync(join(root, f)));
    }
  }
  return h.digest('hex').slice(0, 16);
}

/** Where bundles are cached: the package's cache dir (`SLUICE_CACHE_DIR`, else `$XDG_CACHE_HOME/sluice`, ...: common/cache-dir.ts). */
export const bundleCacheDir = cacheDir;

/** The workflows' entry: the TypeScript sources in a checkout, the compiled JavaScript in the package. */
function workflowsEntry(): string {
  const ts = join(codeRoot, 'workflows', 'index.ts');
  return existsSync(ts) ? ts : join(codeRoot, 'workflows', 'index.js');
}

/**
 * The prebuilt workflow bundle: built once per version of the workflow code and cached in
 * `cacheDir` (default {@link bundleCacheDir}), so a daemon (re)starts in about a second instead of
 * bundling each time. `interceptorModules` (tracing's: worker/tracing.ts) go into a bundle of their
 * own, cached beside the plain one.
 */
export async function workflowBundle(
  cacheDir = bundleCacheDir(),
  interceptorModules: string[] = [],
): Promise<{ code: string }> {
  const tag = interceptorModules.length > 0 ? '-traced' : '';
  const file = join(cacheDir, `workflow-bundle${tag}-${sourceHash()}.js`);
  if (existsSync(file)) return { code: readFileSync(file, 'utf8') };
  const { code } = await bundleWorkflowCode({
    workflowsPath: workflowsEntry(),
    workflowInterceptorModules: interceptorModules,
    logger: quietLogger,
  });
  mkdirSync(cacheDir, { recursive: true });
  // Written aside and renamed: processes bundling at once never read a half-written file.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, code);
  renameSync(tmp, file);
  return { code };
}

const noop = (): void => {};
const quietLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop };
