/** The source tree as the layout checks read it: its TypeScript files, and their code without comments. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';

/** The repository's root. */
export const root = resolve(__dirname, '..', '..');

/** Every `.ts` file under the top-level folders `dirs` (those that exist), relative to the root with `/`. */
export function sourceFiles(dirs: readonly string[]): string[] {
  const files = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
      const p = join(dir, e.name);
      if (e.isDirectory()) return files(p);
      return e.name.endsWith('.ts') ? [p.split(sep).join('/')] : [];
    });
  return dirs.filter((d) => existsSync(join(root, d))).flatMap(files);
}

/** Source without comments, so prose may mention a name or an import. */
export const code = (file: string): string =>
  readFileSync(join(root, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
