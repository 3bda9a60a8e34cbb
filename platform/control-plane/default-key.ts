/** The first user's API key: given, or kept in a 0600 file of the data folder (never in the database). */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMeta, type Db } from '../core/db';
import { apiKey as newApiKey } from '../core/ids';

/** The file that keeps the first user's key, readable by the platform's user only. */
export const defaultKeyFileIn = (dataDir: string): string => join(dataDir, 'api-key');

/** The first user's key and whether it was made (or changed) by this start, so it is shown this once. */
export interface DefaultKey {
  key: string;
  file: string;
  created: boolean;
}

/**
 * The key of the first user: `given` (--api-key, SLUICE_API_KEY), else the one kept in
 * `<dataDir>/api-key`, else one an older platform kept in the database's meta table (moved out
 * of it here), else a new one. The database stores its hash only, so the key itself is kept in
 * that 0600 file for the operator and for restarts, as `sluice dev` keeps it in dev.json.
 */
export function defaultApiKey(db: Db, dataDir: string, given: string | undefined): DefaultKey {
  const file = defaultKeyFileIn(dataDir);
  let kept: string | undefined;
  try {
    kept = readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    kept = undefined;
  }
  const legacy = getMeta(db, 'default_api_key');
  if (legacy !== undefined) {
    db.prepare('DELETE FROM meta WHERE key = ?').run('default_api_key');
    db.pragma('wal_checkpoint(TRUNCATE)');
  }
  const key = given ?? kept ?? legacy ?? newApiKey();
  if (key !== kept) writeFileSync(file, `${key}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { key, file, created: key !== kept && key !== legacy };
}
