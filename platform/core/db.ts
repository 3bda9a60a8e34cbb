/** The platform's SQLite database: schema, opening, and the meta table. */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

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

/**
 * Opens (creating if needed) the platform's SQLite database. WAL with synchronous=NORMAL:
 * a crash of the process loses nothing committed; a power loss may lose the last transactions.
 */
export function openDb(file: string): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  migrate(db);
  return db;
}

/** Brings a database made by an older platform up to the schema (columns added since). */
function migrate(db: Db): void {
  const columns = (db.prepare('PRAGMA table_info(jobs)').all() as { name: string }[]).map((c) => c.name);
  if (!columns.includes('idempotency_key')) db.exec('ALTER TABLE jobs ADD COLUMN idempotency_key TEXT');
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
