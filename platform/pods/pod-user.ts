/** Who worker pods run as and where their HOME folders live: apart from the platform's state. */
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { type PodUser } from './pod-process';

/** `nobody` on Debian and most Linux systems. */
const NOBODY: PodUser = { uid: 65534, gid: 65534 };

/**
 * The user pods run as when none is given: `SLUICE_POD_UID`/`SLUICE_POD_GID`, else `nobody` when
 * the platform runs as root, else none (pods run as the platform's own user).
 */
export function defaultPodUser(env: NodeJS.ProcessEnv = process.env): PodUser | undefined {
  const uid = env.SLUICE_POD_UID;
  if (uid !== undefined && uid !== '') {
    const u = Number(uid);
    const g = Number(env.SLUICE_POD_GID ?? uid);
    if (!Number.isInteger(u) || u < 0 || !Number.isInteger(g) || g < 0)
      throw new Error(`SLUICE_POD_UID/SLUICE_POD_GID must be numeric ids, got ${uid}/${env.SLUICE_POD_GID ?? ''}`);
    return { uid: u, gid: g };
  }
  return process.getuid?.() === 0 ? NOBODY : undefined;
}

/** The parent of the pods' HOME folders: in the system's temporary folder, one per platform user. */
export const defaultPodHomeDir = (): string => join(tmpdir(), `sluice-pods-${process.getuid?.() ?? 'user'}`);

/** Whether `user` has the permission `bits` (4 read, 1 search) on `path`, by its owner, group and mode (ACLs and supplementary groups aside). */
function permits(user: PodUser, path: string, bits: number): boolean {
  const st = statSync(path);
  const shift = st.uid === user.uid ? 6 : st.gid === user.gid ? 3 : 0;
  return ((st.mode >> shift) & bits) === bits;
}

/**
 * The first folder on the way to `file` that `user` cannot enter, or `file` itself when it cannot
 * read it; undefined when it can read it (root reads everything).
 */
export function unreadableBy(user: PodUser, file: string): string | undefined {
  if (user.uid === 0) return undefined;
  const path = resolve(file);
  const folders: string[] = [];
  for (let d = dirname(path); ; d = dirname(d)) {
    folders.unshift(d);
    if (dirname(d) === d) break;
  }
  return folders.find((d) => !permits(user, d, 1)) ?? (permits(user, path, 4) ? undefined : path);
}
