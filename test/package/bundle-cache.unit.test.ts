/** Where the daemon caches its workflow bundle: never inside the package (a read-only node_modules). */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeRoot } from '../../common/package-root';
import { bundleCacheDir } from '../../worker/bundle';

describe('the workflow bundle cache dir', () => {
  it('is SLUICE_CACHE_DIR, else $XDG_CACHE_HOME/sluice, else ~/.cache/sluice', () => {
    expect(bundleCacheDir({ SLUICE_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x' })).toBe('/c');
    expect(bundleCacheDir({ XDG_CACHE_HOME: '/x' })).toBe(join('/x', 'sluice'));
    expect(bundleCacheDir({})).toBe(join(homedir(), '.cache', 'sluice'));
  });

  it('is never under the package by default', () => {
    expect(bundleCacheDir({}).startsWith(codeRoot)).toBe(false);
  });
});
