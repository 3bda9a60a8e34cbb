/** Ids and keys: endpoint and pod ids, job ids, API keys, and what a safe id looks like. */
import { randomBytes, randomUUID } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Lower-case alphanumeric id of `length` characters, like the service's endpoint and pod ids. */
export function shortId(length = 14): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i]! % ALPHABET.length];
  return out;
}

/** Job ids look like the service's: a UUID with a region suffix. */
export const jobId = (): string => `${randomUUID()}-l1`;

/** API keys: a recognisable prefix and 32 random bytes. */
export const apiKey = (): string => `sl_${randomBytes(24).toString('base64url')}`;

/** Ids that are safe to use in a path segment and a SQL key. */
export const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
