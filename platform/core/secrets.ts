/** Secrets at rest: the per-database secret, keyed hashes of API keys and sealed (encrypted) values. */
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Prefix of a stored key hash: HMAC-SHA-256, version 1. */
const HASH_PREFIX = 'h1:';
/** Prefix of a sealed value: AES-256-GCM, version 1 (iv, tag, ciphertext, base64url). */
const SEAL_PREFIX = 'enc1:';

/** The file of the per-database secret beside the database `dbFile` (0600). */
export const secretFileOf = (dbFile: string): string => join(dirname(dbFile), 'platform.secret');

/**
 * What the platform keeps secret in its database. API keys are stored as HMAC-SHA-256 under a
 * random per-database secret, not as a slow password hash: keys are random (192 bits), so no
 * dictionary can guess them and a slow hash would add nothing but a cost to every request; the
 * secret lives in a 0600 file apart from the database, so a copy of the database alone cannot
 * even check a guess. Values the platform must read back (jobs' `s3Config`) are sealed with
 * AES-256-GCM under a key derived from the same secret.
 */
export class Secrets {
  /** A key made once (every request's API key is hashed with it): a Buffer would be imported again at each call. */
  private readonly macKey: KeyObject;
  private readonly sealKey: Buffer;

  constructor(secret: Buffer) {
    this.macKey = createSecretKey(Buffer.from(hkdfSync('sha256', secret, '', 'sluice api-key hash', 32)));
    this.sealKey = Buffer.from(hkdfSync('sha256', secret, '', 'sluice sealed values', 32));
  }

  /** Reads the secret beside `dbFile`, creating it (0600) on first use; a fresh one for `:memory:`. */
  static forDb(dbFile: string): Secrets {
    if (dbFile === ':memory:') return new Secrets(randomBytes(32));
    const file = secretFileOf(dbFile);
    let secret: Buffer;
    try {
      secret = readFileSync(file);
    } catch {
      secret = randomBytes(32);
      writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    }
    chmodSync(file, 0o600);
    if (secret.length < 32) throw new Error(`${file} is damaged: it holds fewer than 32 bytes`);
    return new Secrets(secret);
  }

  /** The stored form of API key `key`: looked up by equality, never reversible. */
  hash(key: string): string {
    return HASH_PREFIX + createHmac('sha256', this.macKey).update(key).digest('base64url');
  }

  /** True when `stored` is the hash of `key`, compared in constant time. */
  matches(stored: string, key: string): boolean {
    const a = Buffer.from(stored);
    const b = Buffer.from(this.hash(key));
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** `text` encrypted and authenticated. */
  seal(text: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return SEAL_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The text `sealed` was made from; a value stored before sealing existed is returned as it is. */
  unseal(sealed: string): string {
    if (!isSealed(sealed)) return sealed;
    const raw = Buffer.from(sealed.slice(SEAL_PREFIX.length), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.sealKey, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

export const isKeyHash = (stored: string): boolean => stored.startsWith(HASH_PREFIX);
export const isSealed = (stored: string): boolean => stored.startsWith(SEAL_PREFIX);

/** `a === b` in constant time (pod tokens). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
