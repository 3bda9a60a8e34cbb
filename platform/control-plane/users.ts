/** Users and their API keys, stored in SQLite. */
import { dbFileIn, openDb, type Db } from '../core/db';
import { apiKey as newApiKey, shortId } from '../core/ids';
import { ConflictError } from '../core/errors';

export interface User {
  id: string;
  name: string;
  apiKey: string;
}

/**
 * Users and their API keys. Lookups by key go to SQLite on a cache miss, so a user added by
 * `sluice platform users add` from another process is seen without a restart.
 */
export class UserStore {
  private readonly byKey = new Map<string, User>();
  private readonly selectByKey;
  private readonly selectByName;
  private readonly insert;

  constructor(private readonly db: Db) {
    this.selectByKey = db.prepare('SELECT id, name, api_key AS apiKey FROM users WHERE api_key = ?');
    this.selectByName = db.prepare('SELECT id, name, api_key AS apiKey FROM users WHERE name = ?');
    this.insert = db.prepare('INSERT INTO users(id, name, api_key, created_at) VALUES (?, ?, ?, ?)');
  }

  /** The user owning `key`, or undefined. */
  byApiKey(key: string): User | undefined {
    const cached = this.byKey.get(key);
    if (cached) return cached;
    const row = this.selectByKey.get(key) as User | undefined;
    if (row) this.byKey.set(key, row);
    return row;
  }

  byName(name: string): User | undefined {
    return this.selectByName.get(name) as User | undefined;
  }

  /** Creates a user; the key is generated unless given. Names are unique. */
  add(name: string, key: string = newApiKey()): User {
    if (!/^[A-Za-z0-9_.@-]{1,64}$/.test(name))
      throw new ConflictError(`user name "${name}" must be 1-64 letters, digits or _.@-`);
    if (this.byName(name)) throw new ConflictError(`a user named "${name}" already exists`);
    if (this.byApiKey(key)) throw new ConflictError('that API key is already in use');
    const user: User = { id: `user_${shortId(10)}`, name, apiKey: key };
    this.insert.run(user.id, user.name, user.apiKey, Date.now());
    return user;
  }

  /** Ensures a user `name` exists with `key` (used for the platform's first user). */
  ensure(name: string, key: string): User {
    const byKey = this.byApiKey(key);
    if (byKey) return byKey;
    const existing = this.byName(name);
    if (existing) {
      // A restart with another --api-key rotates the first user's key.
      this.db.prepare('UPDATE users SET api_key = ? WHERE id = ?').run(key, existing.id);
      this.byKey.delete(existing.apiKey);
      return { ...existing, apiKey: key };
    }
    return this.add(name, key);
  }
}

/** The users of the platform whose data folder is `dataDir`, opened beside a platform that may be running. */
export interface UserAdmin {
  /** Creates a user (see {@link UserStore.add}). */
  add(name: string): User;
  close(): void;
}

/** Opens the user table of the platform in `dataDir` (for `sluice platform users add`). */
export function openUsers(dataDir: string): UserAdmin {
  const db = openDb(dbFileIn(dataDir));
  const users = new UserStore(db);
  return { add: (name) => users.add(name), close: () => db.close() };
}
