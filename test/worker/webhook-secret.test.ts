/** Daemons sharing a results store share the generated webhook secret (local directory and S3). */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ObjectStore } from '../../results/store/object-store';
import { openResultsStore } from '../../results/store/open';
import { WEBHOOK_SECRET_KEY, sharedWebhookSecret } from '../../worker/webhook-secret';
import { startS3Server, type S3Server } from '../helpers/s3';

describe('the shared webhook secret', () => {
  let dir = '';
  let s3: S3Server;
  const stores: ObjectStore[] = [];
  const keep = (s: ObjectStore): ObjectStore => (stores.push(s), s);
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-secret-'));
    s3 = await startS3Server();
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await s3.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is created once and read by every daemon of the store, concurrently too', async () => {
    for (const open of [
      (n: string) => openResultsStore(join(dir, n)),
      (n: string) => openResultsStore(s3.url(n), { env: s3.env }),
    ]) {
      const secrets = await Promise.all([1, 2, 3].map(() => sharedWebhookSecret(undefined, keep(open('shared')))));
      expect(new Set(secrets).size).toBe(1);
      expect(secrets[0]!.length).toBeGreaterThanOrEqual(32);
      expect(await sharedWebhookSecret(undefined, keep(open('other')))).not.toBe(secrets[0]);
    }
  });

  it('in a local store, the secret file is 0600 in a 0700 folder; one an older daemon wrote is made so', async () => {
    const mode = (p: string): string => (statSync(p).mode & 0o777).toString(8);
    const root = join(dir, 'modes');
    await sharedWebhookSecret(undefined, keep(openResultsStore(root)));
    const file = join(root, WEBHOOK_SECRET_KEY);
    expect([mode(file), mode(join(file, '..')), mode(root)]).toEqual(['600', '700', '700']);
    const old = join(dir, 'old-modes');
    const store = keep(openResultsStore(old));
    writeFileSync(join(old, '.webhook-secret'), 'an-older-generated-secret\n', { mode: 0o644 });
    await sharedWebhookSecret(undefined, store);
    expect(mode(join(old, '.webhook-secret'))).toBe('600');
  });

  it('prefers SLUICE_WEBHOOK_SECRET, and keeps the secret of an older local results directory', async () => {
    expect(await sharedWebhookSecret('configured-secret-value', keep(openResultsStore(join(dir, 'x'))))).toBe(
      'configured-secret-value',
    );
    const old = join(dir, 'old');
    const store = keep(openResultsStore(old));
    writeFileSync(join(old, '.webhook-secret'), 'an-older-generated-secret\n');
    expect(await sharedWebhookSecret(undefined, store)).toBe('an-older-generated-secret');
  });
});
