/** Whether worker pods running as another user can reach a handler: the folder on the way they cannot enter is named, and the example check says what to do. */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { examplesUnreadable } from '../../platform';
import { unreadableBy } from '../../platform/pods/pod-user';

const self = { uid: process.getuid!(), gid: process.getgid!() };
/** A user that is neither this file's owner nor in its group. */
const other = { uid: self.uid + 4242, gid: self.gid + 4242 };

describe('pods as another user reaching a handler', () => {
  const roots: string[] = [];
  afterEach(() => roots.splice(0).forEach((r) => rmSync(r, { recursive: true, force: true })));
  /** `<tmp 0700>/a/handler.ts`, the folder `a` 0755 and the file 0644. */
  const tree = () => {
    const root = mkdtempSync(join(tmpdir(), 'sluice-pod-reach-'));
    roots.push(root);
    const a = join(root, 'a');
    mkdirSync(a, { mode: 0o755 });
    const file = join(a, 'handler.ts');
    writeFileSync(file, '', { mode: 0o644 });
    return { root, a, file };
  };

  it('names the first folder it cannot enter (a 0700 temporary folder), then the file it cannot read', () => {
    const { root, a, file } = tree();
    chmodSync(root, 0o700);
    expect(unreadableBy(other, file)).toBe(root);
    chmodSync(root, 0o755);
    expect(unreadableBy(other, file)).toBeUndefined();
    chmodSync(a, 0o750);
    expect(unreadableBy(other, file)).toBe(a);
    expect(unreadableBy({ uid: other.uid, gid: self.gid }, file)).toBeUndefined();
    chmodSync(a, 0o755);
    chmodSync(file, 0o600);
    expect(unreadableBy(other, file)).toBe(file);
  });

  it('the owner and root reach what others cannot', () => {
    const { root, file } = tree();
    chmodSync(root, 0o700);
    expect(unreadableBy(self, file)).toBeUndefined();
    expect(unreadableBy({ uid: 0, gid: 0 }, file)).toBeUndefined();
  });

  it('the example check: nothing to say for pods as the platform user or a checkout they can read; else SLUICE_POD_UID', () => {
    expect(examplesUnreadable(undefined)).toBeUndefined();
    // This checkout and its node_modules are 0755 (as CI's): the examples are readable by anyone.
    expect(examplesUnreadable(other)).toBeUndefined();
    const { root, file } = tree();
    chmodSync(root, 0o700);
    const said = examplesUnreadable(other, [file]);
    expect(said).toContain(`cannot read ${root}:`);
    expect(said).toContain('IN_QUEUE');
    expect(said).toContain('SLUICE_POD_UID');
  });
});
