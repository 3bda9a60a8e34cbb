/**
 * The README's Layout block names every source folder and every file in it, so the next person
 * finds a concept's home there: a folder line starts with its path, its files follow as bare names.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, sourceFiles } from './source-tree';

const DIRS = [
  'contracts',
  'common',
  'platform-api',
  'worker-sdk',
  'results',
  'platform',
  'activities',
  'workflows',
  'config',
  'worker',
  'client',
  'console',
  'examples',
];

/** The README's Layout code block, as folder path -> the text of its entry (its line and the indented ones after it). */
export function layoutEntries(readme: string): Map<string, string> {
  const section = readme.slice(readme.indexOf('## Layout'));
  const block = section.slice(section.indexOf('```\n') + 4, section.indexOf('\n```', section.indexOf('```\n') + 4));
  const entries = new Map<string, string>();
  let current: string | undefined;
  for (const line of block.split('\n')) {
    const head = /^([a-z][\w-]*(?:\/[\w-]+)*\/)\s/.exec(line + ' ');
    if (head) entries.set((current = head[1]!), line.slice(head[1]!.length));
    else if (current && /^\s/.test(line)) entries.set(current, `${entries.get(current)!}\n${line}`);
  }
  return entries;
}

/** What is missing from the entries: a folder without a line, or a file its folder's entry does not name. */
export function missingFromLayout(files: string[], entries: Map<string, string>): string[] {
  const missing = new Set<string>();
  for (const file of files) {
    const slash = file.lastIndexOf('/');
    const dir = file.slice(0, slash + 1);
    const name = file.slice(slash + 1).replace(/\.ts$/, '');
    const entry = entries.get(dir);
    if (entry === undefined) missing.add(`${dir} (no line for the folder)`);
    else if (!new RegExp(`(^|[^\\w-])${name.replace(/[-]/g, '\\-')}($|[^\\w-])`).test(entry)) missing.add(file);
  }
  return [...missing];
}

describe("the README's Layout", () => {
  it('names every source folder and file', () => {
    const entries = layoutEntries(readFileSync(join(root, 'README.md'), 'utf8'));
    expect(missingFromLayout(sourceFiles(DIRS), entries)).toEqual([]);
  });

  it('finds what a small layout leaves out (the check itself can fail)', () => {
    const entries = layoutEntries('## Layout\n\n```\na/      one two\n        three-four\na/b/    five\n```\n');
    expect(
      missingFromLayout(['a/one.ts', 'a/three-four.ts', 'a/three.ts', 'a/b/five.ts', 'c/six.ts'], entries),
    ).toEqual(['a/three.ts', 'c/ (no line for the folder)']);
  });
});
