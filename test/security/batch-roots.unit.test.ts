/** The rule of where a batch may read and write (results/batch/roots.ts): paths resolved (`..`, symlinks) before the check, buckets by prefix. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchLocationRefusal, batchRoots, realPath, withinRoots } from '../../results/batch/roots';

describe('batch roots (SLUICE_BATCH_ROOTS)', () => {
  let base: string;
  let allowed: string;
  let outside: string;
  beforeAll(() => {
    base = realPath(mkdtempSync(join(tmpdir(), 'sluice-roots-')));
    allowed = join(base, 'allowed');
    outside = join(base, 'outside');
    mkdirSync(allowed);
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.jsonl'), '{}\n');
    symlinkSync(outside, join(allowed, 'link'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const roots = () => batchRoots(`${allowed}, s3://inputs/team-a`, 's3://results/store', base);

  it('allows what lies under a root, the results store too', () => {
    expect(batchLocationRefusal({ source: join(allowed, 'in.jsonl'), outDir: join(allowed, 'out/new') }, roots())).toBe(
      undefined,
    );
    expect(batchLocationRefusal({ source: allowed }, roots())).toBe(undefined);
    expect(
      batchLocationRefusal({ source: 's3://inputs/team-a/in.jsonl', outDir: 's3://results/store/b1/' }, roots()),
    ).toBe(undefined);
    // Relative to the working directory given.
    expect(batchLocationRefusal({ source: 'allowed/x.jsonl' }, roots(), base)).toBe(undefined);
  });

  it('refuses what lies outside, through `..` or a symlink, naming the setting', () => {
    for (const source of [
      join(outside, 'secret.jsonl'),
      join(allowed, '..', 'outside', 'secret.jsonl'),
      join(allowed, 'link', 'secret.jsonl'),
      join(allowed, 'link', 'not-yet', 'x.jsonl'),
      `${allowed}-sibling/x.jsonl`,
      's3://inputs/team-b/in.jsonl',
      's3://inputs/team-a-other/in.jsonl',
      's3://other/team-a/in.jsonl',
    ])
      expect(batchLocationRefusal({ source }, roots()), source).toMatch(
        /^the batch's input .* is outside the places batches may read and write \(SLUICE_BATCH_ROOTS: /,
      );
    expect(batchLocationRefusal({ source: join(allowed, 'in.jsonl'), outDir: '/etc/out' }, roots())).toMatch(
      /output directory \/etc\/out .*SLUICE_BATCH_ROOTS/,
    );
  });

  it('defaults to the working directory, and a bucket root allows the whole bucket', () => {
    const r = batchRoots(undefined, join(base, 'results'), allowed);
    expect(withinRoots({ local: join(allowed, 'a.jsonl') }, r)).toBe(true);
    expect(withinRoots({ local: join(base, 'results', 'x') }, r)).toBe(true);
    expect(withinRoots({ local: join(outside, 'a.jsonl') }, r)).toBe(false);
    const bucket = batchRoots('s3://inputs', join(base, 'results'), base);
    expect(withinRoots({ bucket: 'inputs', key: 'any/where.jsonl' }, bucket)).toBe(true);
    expect(withinRoots({ local: join(base, 'a') }, bucket)).toBe(false);
  });
});
