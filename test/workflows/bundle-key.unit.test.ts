/** The workflow bundle's cache key covers every workflow and contract source, subfolders included. */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sourceHash } from '../../worker/bundle';

describe('workflow bundle cache key', () => {
  let root: string;
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const tree = () => {
    root = mkdtempSync(join(tmpdir(), 'sluice-bundle-key-'));
    write('workflows/index.ts', 'export * from "./job";');
    write('workflows/job/steps.ts', 'export const a = 1;');
    write('contracts/names.ts', 'export const q = "sluice";');
    write('contracts/wire/shapes.ts', 'export type S = string;');
    write('activities/job.ts', 'export const unrelated = 1;');
  };
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('is stable for the same tree and changes with any file under workflows/ or contracts/, at any depth', () => {
    tree();
    const before = sourceHash(root);
    expect(sourceHash(root)).toBe(before);
    write('workflows/job/steps.ts', 'export const a = 2;');
    const afterWorkflowEdit = sourceHash(root);
    expect(afterWorkflowEdit).not.toBe(before);
    write('contracts/wire/shapes.ts', 'export type S = number;');
    const afterContractEdit = sourceHash(root);
    expect(afterContractEdit).not.toBe(afterWorkflowEdit);
    write('workflows/job/more/deep.ts', 'export {};');
    expect(sourceHash(root)).not.toBe(afterContractEdit);
  });

  it('changes when a file moves to another folder with the same content', () => {
    tree();
    const before = sourceHash(root);
    mkdirSync(join(root, 'workflows', 'other'));
    renameSync(join(root, 'workflows', 'job', 'steps.ts'), join(root, 'workflows', 'other', 'steps.ts'));
    expect(sourceHash(root)).not.toBe(before);
  });

  it('ignores files outside workflows/ and contracts/', () => {
    tree();
    const before = sourceHash(root);
    write('activities/job.ts', 'export const unrelated = 2;');
    write('activities/deep/x.ts', 'export {};');
    expect(sourceHash(root)).toBe(before);
  });
});
