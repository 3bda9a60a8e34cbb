import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

const root = join(__dirname, '..');

function sourceHash(): string {
  const h = createHash('sha256');
  // The SDK's workflow runtime is bundled too: another version needs another bundle.
  h.update(readFileSync(join(root, 'node_modules', '@temporalio', 'workflow', 'package.json')));
  for (const dir of ['workflows', 'contracts']) {
    for (const f of readdirSync(join(root, dir)).filter((n) => n.endsWith('.ts')).sort()) {
      h.update(f).update(readFileSync(join(root, dir, f)));
    }
  }
  return h.digest('hex').slice(0, 16);
}

/**
 * The prebuilt workflow bundle: built once per version of the workflow sources and cached in
 * `dist/`, so a daemon (re)starts in about a second instead of bundling each time.
 */
export async function workflowBundle(cacheDir = join(root, 'dist')): Promise<{ code: string }> {
  const file = join(cacheDir, `workflow-bundle-${sourceHash()}.js`);
  if (existsSync(file)) return { code: readFileSync(file, 'utf8') };
  const { code } = await bundleWorkflowCode({ workflowsPath: join(root, 'workflows', 'index.ts'), logger: quietLogger });
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(file, code);
  return { code };
}

const noop = (): void => {};
const quietLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop };
