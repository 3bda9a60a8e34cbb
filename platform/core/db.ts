/** The platform's SQLite database: schema, opening, and the meta table. */
import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isKeyHash, isSealed, Secrets } from './secrets';

/** Schema version; bump with a migration when a table changes. */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS users (
  id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, api_key TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS templates (
  id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL UNIQUE, data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS endpoints (
  id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL, data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,
  endpoint_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  status TEXT NOT NULL,
  sync INTEGER NOT NULL,
  input TEXT NOT NULL,
  webhook TEXT,
  policy TEXT NOT NULL,
  s3 TEXT,
  submitted_at INTEGER NOT NULL,
  queued_at INTEGER NOT NULL,
  started_at INTEGER,
  completed_at INTEGER,
  ttl_deadline INTEGER NOT NULL,
  retention_until INTEGER,
  output TEXT,
  error TEXT,
  progress TEXT,
  worker_id TEXT,
  retries INTEGER NOT NULL DEFAULT 0,
  stream_read INTEGER NOT NULL DEFAULT 0,
  idempotency_key TEXT
);
-- Jobs are read back only at start-up; an index would only slow every write.
DROP INDEX IF EXISTS jobs_endpoint;
CREATE TABLE IF NOT EXISTS chunks (
  job_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (job_id, seq)
);
`;

export type Db = Database.Database;

/** The platform's database file inside its data folder. */
export const dbFileIn = (dataDir: string): string => join(dataDir, 'platform.sqlite');

const secretsByDb = new WeakMap<Db, Secrets>();

/** The secrets of database `db` (the keyed hash of API keys, sealing of stored secrets). */
export function secretsOf(db: Db): Secrets {
  const s = secretsByDb.get(db);
  if (!s) throw new Error('the database was not opened with openDb');
  return s;
}

/** The data folder (0700) and the database with its WAL and shared-memory files (0600), also when made by an older version. */
function restrictModes(file: string): void {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  // SQLite creates the -wal and -shm files with the mode of the database file.
  closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
}

/**
 * Opens (creating if needed) the platform's SQLite database. WAL with synchronous=NORMAL:
 * a crash of the process loses nothing committed; a power loss may lose the last transactions.
 * `secure_delete` overwrites what a row held when it changes, so no older value lingers in the file.
 */
export function openDb(file: string): Db {
  if (file !== ':memory:') restrictModes(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('secure_delete = ON');
  db.exec(SCHEMA);
  const secrets = Secrets.forDb(file);
  secretsByDb.set(db, secrets);
  migrate(db, secrets);
  return db;
}

/** Brings a database made by an older platform up to the schema (columns added since, secrets stored in plain text). */
function migrate(db: Db, secrets: Secrets): void {
  const columns = (db.prepare('PRAGMA table_info(jobs)').all() as { name: string }[]).map((c) => c.name);
  if (!columns.includes('idempotency_key')) db.exec('ALTER TABLE jobs ADD COLUMN idempotency_key TEXT');
  if (protectPlainSecrets(db, secrets) > 0) {
    // Rewrite the file and empty the WAL: no page of the old, plain rows is left anywhere.
    db.exec('VACUUM');
    db.pragma('wal_checkpoint(TRUNCATE)');
  }
}

/** Hashes API keys and seals `s3Config`s stored in plain text by an older platform; returns how many rows changed. */
function protectPlainSecrets(db: Db, secrets: Secrets): number {
  let changed = 0;
  db.transaction(() => {
    const users = db.prepare('SELECT id, api_key AS k FROM users').all() as { id: string; k: string }[];
    const setKey = db.prepare('UPDATE users SET api_key = ? WHERE id = ?');
    for (const u of users) if (!isKeyHash(u.k)) changed += setKey.run(secrets.hash(u.k), u.id).changes;
    const jobs = db.prepare('SELECT id, s3 FROM jobs WHERE s3 IS NOT NULL').all() as { id: string; s3: string }[];
    const setS3 = db.prepare('UPDATE jobs SET s3 = ? WHERE id = ?');
    for (const j of jobs) if (!isSealed(j.s3)) changed += setS3.run(secrets.seal(j.s3), j.id).changes;
  })();
  return changed;
}

/** Reads a value of the `meta` table. */
export function getMeta(db: Db, key: string): string | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  return row?.value;
}

export function setMeta(db: Db, key: string, value: string): void {
  db.prepare('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(
    key,
    value,
  );
}
