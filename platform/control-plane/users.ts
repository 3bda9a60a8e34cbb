/** Users and their API keys, stored in SQLite as keyed hashes (platform/core/secrets.ts). */
import { dbFileIn, openDb, secretsOf, type Db } from '../core/db';
import { apiKey as newApiKey, shortId } from '../core/ids';
import { ConflictError } from '../core/errors';
import { type Secrets } from '../core/secrets';

export interface User {
  id: string;
  name: string;
}

/** A user just created, with its API key: the only time the key is known in clear. */
export interface NewUser extends User {
  apiKey: string;
}

interface UserRow extends User {
  keyHash: string;
}

/**
 * Users and their API keys. Only a keyed hash of a key is stored; a request's key is hashed and
 * looked up by that hash, and the row found is compared again in constant time. Lookups go to
 * SQLite on a cache miss (the cache is keyed by hash too), so a user added by `sluice platform
 * users add` from another process is seen without a restart.
 */
export class UserStore {
  private readonly byHash = new Map<string, User>();
  private readonly secrets: Secrets;
  private readonly selectByHash;
  private readonly selectByName;
  private readonly insert;

  constructor(private readonly db: Db) {
    this.secrets = secretsOf(db);
    this.selectByHash = db.prepare('SELECT id, name, api_key AS keyHash FROM users WHERE api_key = ?');
    this.selectByName = db.prepare('SELECT id, name, api_key AS keyHash FROM users WHERE name = ?');
    this.insert = db.prepare('INSERT INTO users(id, name, api_key, created_at) VALUES (?, ?, ?, ?)');
  }

  /** The user owning `key`, or undefined. */
  byApiKey(key: string): User | undefined {
    const hash = this.secrets.hash(key);
    const cached = this.byHash.get(hash);
    if (cached) return cached;
    const row = this.selectByHash.get(hash) as UserRow | undefined;
    if (!row || !this.secrets.matches(row.keyHash, key)) return undefined;
    const user: User = { id: row.id, name: row.name };
    this.byHash.set(hash, user);
    return user;
  }

  byName(name: string): User | undefined {
    const row = this.selectByName.get(name) as UserRow | undefined;
    return row && { id: row.id, name: row.name };
  }

  /** Creates a user; the key is generated unless given, and returned this once. Names are unique. */
  add(name: string, key: string = newApiKey()): NewUser {
    if (!/^[A-Za-z0-9_.@-]{1,64}$/.test(name))
      throw new ConflictError(`user name "${name}" must be 1-64 letters, digits or _.@-`);
    if (this.byName(name)) throw new ConflictError(`a user named "${name}" already exists`);
    if (this.byApiKey(key)) throw new ConflictError('that API key is already in use');
    const user: NewUser = { id: `user_${shortId(10)}`, name, apiKey: key };
    this.insert.run(user.id, user.name, this.secrets.hash(key), Date.now());
    return user;
  }

  /** Ensures a user `name` exists with `key` (used for the platform's first user). */
  ensure(name: string, key: string): User {
    const byKey = this.byApiKey(key);
    if (byKey) return byKey;
    const existing = this.selectByName.get(name) as UserRow | undefined;
    if (existing) {
      // A restart with another --api-key rotates the first user's key.
      this.db.prepare('UPDATE users SET api_key = ? WHERE id = ?').run(this.secrets.hash(key), existing.id);
      this.byHash.delete(existing.keyHash);
      return { id: existing.id, name: existing.name };
    }
    const { apiKey: _shown, ...user } = this.add(name, key);
    return user;
  }
}

/** The users of the platform whose data folder is `dataDir`, opened beside a platform that may be running. */
export interface UserAdmin {
  /** Creates a user (see {@link UserStore.add}); its key is returned this once. */
  add(name: string): NewUser;
  close(): void;
}

/** Opens the user table of the platform in `dataDir` (for `sluice platform users add`). */
export function openUsers(dataDir: string): UserAdmin {
  const db = openDb(dbFileIn(dataDir));
  const users = new UserStore(db);
  return { add: (name) => users.add(name), close: () => db.close() };
}
