/** The prebuilt workflow bundle, cached per version of the workflow sources. */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

const projectRoot = join(__dirname, '..');

/** Every file under `dir`, recursively, as sorted `/`-separated paths relative to `base`. */
function filesUnder(base: string, dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(base, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

/**
 * Key of the workflow sources under `root`: the SDK's workflow runtime version and every file
 * under `workflows/` and `contracts/` (subfolders included), by relative path and content.
 */
export function sourceHash(root = projectRoot): string {
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

/**
 * The prebuilt workflow bundle: built once per version of the workflow sources and cached in
 * `dist/`, so a daemon (re)starts in about a second instead of bundling each time.
 */
export async function workflowBundle(cacheDir = join(projectRoot, 'dist')): Promise<{ code: string }> {
  const file = join(cacheDir, `workflow-bundle-${sourceHash()}.js`);
  if (existsSync(file)) return { code: readFileSync(file, 'utf8') };
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(projectRoot, 'workflows', 'index.ts'),
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
