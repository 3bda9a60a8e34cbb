/** The keys of the local results store under a prefix: its folders walked, temporary files left out, in byte order. */
import { type Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isCode, TMP } from './fs-durable';
import { checkKey, count, type StoreStats } from './object-store';

/** Every key starting with `prefix` in the store at directory `root` (at any depth), sorted by their bytes. */
export async function keysUnder(root: string, prefix: string, stats: StoreStats): Promise<string[]> {
  const slash = prefix.lastIndexOf('/');
  const folder = prefix.slice(0, slash + 1);
  const keys: string[] = [];
  const walk = async (dir: string, filter: string): Promise<void> => {
    let names: Dirent[];
    try {
      count(stats, 'readdir');
      names = await readdir(join(root, dir), { withFileTypes: true });
    } catch (err) {
      if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) return;
      throw err;
    }
    for (const e of names) {
      if (!e.name.startsWith(filter) || TMP.test(e.name)) continue;
      if (e.isDirectory()) await walk(`${dir}${e.name}/`, '');
      else if (e.isFile()) keys.push(dir + e.name);
    }
  };
  if (folder) checkKey(folder.slice(0, -1));
  await walk(folder, prefix.slice(slash + 1));
  keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return keys;
}
