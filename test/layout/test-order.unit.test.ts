/** The suite's order (test/helpers/longest-first.ts): the long files it names exist and start first, longest first. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type TestSpecification, type Vitest } from 'vitest/node';
import LongestFirst, { LONG_FILES } from '../helpers/longest-first';

const root = join(__dirname, '..', '..');

describe('the order of the test files', () => {
  it('names stack test files that exist, longest first', () => {
    const files = Object.keys(LONG_FILES);
    const wrong = files.filter(
      (f) => !existsSync(join(root, f)) || /\.unit\.test\.ts$/.test(f) || !/\.test\.ts$/.test(f),
    );
    expect(wrong).toEqual([]);
    const seconds = Object.values(LONG_FILES);
    expect(seconds).toEqual([...seconds].sort((a, b) => b - a));
  });

  it('starts the long files first, longest first, then the others in the order vitest gives them', async () => {
    // vitest with no record of earlier runs (a fresh clone): it would start the largest files first.
    const sizes: Record<string, number> = {
      'test/a.unit.test.ts': 9000,
      'test/pipeline/crash.test.ts': 100,
      'test/b.test.ts': 5000,
      'test/console/console.test.ts': 200,
    };
    const ctx = {
      config: { root },
      cache: {
        getFileTestResults: () => undefined,
        getFileStats: (key: string) => ({ size: sizes[key.slice(key.indexOf(':') + 1)]! }),
      },
    } as unknown as Vitest;
    const specs = Object.keys(sizes).map((f) => ({ project: { name: 'stack' }, moduleId: join(root, f) }));
    const sorted = await new LongestFirst(ctx).sort(specs as unknown as TestSpecification[]);
    expect(sorted.map((s) => s.moduleId.slice(root.length + 1))).toEqual([
      'test/pipeline/crash.test.ts',
      'test/console/console.test.ts',
      'test/a.unit.test.ts',
      'test/b.test.ts',
    ]);
  });
});
