/**
 * The key that signs webhook URLs, the same for every daemon that shares a results store:
 * `SLUICE_WEBHOOK_SECRET` when set, else one generated once and kept in the store (the first
 * daemon creates it; the others read it), so a webhook signed by one daemon verifies at any other.
 * In a local store the file is 0600 in a 0700 folder (made so on start when an older daemon wrote it).
 */
import { randomBytes } from 'node:crypto';
import { chmod } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isStoreError } from '../results/errors';
import { type ObjectStore } from '../results/store/object-store';

/** Where the generated secret is kept in the results store. */
export const WEBHOOK_SECRET_KEY = '_sluice/webhook-secret.json';
/** Where daemons before the shared store kept it (a local results directory): still honoured. */
const LEGACY_KEY = '.webhook-secret';

/** The webhook secret: `configured`, the store's, or a new one created there. */
export async function sharedWebhookSecret(configured: string | undefined, store: ObjectStore): Promise<string> {
  if (configured) return configured;
  const legacy = await store.readRange(LEGACY_KEY, 0, 4096).catch((err: unknown) => {
    if (isStoreError(err, 'NOT_FOUND')) return undefined;
    throw err;
  });
  if (legacy && legacy.toString('utf8').trim()) {
    await privateFile(store, LEGACY_KEY);
    return legacy.toString('utf8').trim();
  }
  await store.create(WEBHOOK_SECRET_KEY, { secret: randomBytes(32).toString('base64url') });
  await privateFile(store, WEBHOOK_SECRET_KEY);
  const kept = (await store.get(WEBHOOK_SECRET_KEY)) as { secret?: unknown };
  if (typeof kept?.secret !== 'string' || kept.secret.length < 16)
    throw new Error(
      `${store.url}/${WEBHOOK_SECRET_KEY} holds no usable secret: remove it or set SLUICE_WEBHOOK_SECRET`,
    );
  return kept.secret;
}

/** A local store's file `key` made 0600 and its folder 0700 (the results root itself is left as it is). */
async function privateFile(store: ObjectStore, key: string): Promise<void> {
  if (store.kind !== 'fs') return;
  const file = join(store.url, key);
  await chmod(file, 0o600);
  if (dirname(key) !== '.') await chmod(dirname(file), 0o700);
}
