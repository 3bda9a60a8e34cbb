/** Where the package's own files are: its root (package.json, bin/, .tools/) from the sources or from the compiled dist/. */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';

/**
 * The folder that holds this module's tree: the repository root when running from the sources,
 * `dist/` when running the compiled JavaScript (the file layout is the same under both).
 */
export const codeRoot = join(__dirname, '..');

/** The package root: the folder with package.json (`dist/`'s parent for the compiled code). */
export const packageRoot =
  basename(codeRoot) === 'dist' && !existsSync(join(codeRoot, 'package.json')) ? join(codeRoot, '..') : codeRoot;

/** The package's name and version, from its package.json. */
export function packageInfo(): { name: string; version: string } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(join(packageRoot, 'package.json')) as { name: string; version: string };
}
