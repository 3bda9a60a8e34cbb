/**
 * What loading a file loads with it: the source files and the packages reached through its value
 * imports (`import type` and type-only clauses are erased, `import()` waits until the code runs).
 * Pure: it reads source text, as the boundaries test does.
 */
import { importsOf, resolveImport } from './import-graph';

/** The files and packages that load with `entry` (packages by name: `zod`, `@aws-sdk/client-s3`; Node's own omitted). */
export function loadedWith(
  entry: string,
  files: readonly string[],
  text: (file: string) => string,
): { files: Set<string>; packages: Set<string> } {
  const known = new Set(files);
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const { spec, typeOnly, dynamic } of importsOf(text(file))) {
      if (typeOnly || dynamic) continue;
      const to = resolveImport(file, spec, known);
      if (to) visit(to);
      else if (!spec.startsWith('.') && !spec.startsWith('node:'))
        packages.add(
          spec
            .split('/')
            .slice(0, spec.startsWith('@') ? 2 : 1)
            .join('/'),
        );
    }
  };
  visit(entry);
  return { files: seen, packages };
}
