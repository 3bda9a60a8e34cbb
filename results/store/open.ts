/**
 * Opening the results store named by a URL (`SLUICE_RESULTS_URL`): `s3://bucket/prefix` for an
 * S3-compatible bucket (endpoint, credentials and region from the standard AWS variables), or a
 * directory path (`file://` URLs too).
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FsObjectStore } from './fs-object-store';
import { StoreError } from '../errors';
import { LazyStore } from './lazy-store';
import { type ObjectStore } from './object-store';
import { parseS3Url, s3SettingsFromEnv, type OpenStoreOptions } from './s3-url';

/**
 * Checks that the store honours create-if-absent (on S3: `If-None-Match: *`, which the journal and
 * the numbered appends rely on): creates `_sluice/probe.json` twice and expects the second to be
 * refused. Throws `UNSUPPORTED` when the server wrote both (it ignores conditional writes).
 */
export async function checkConditionalWrites(store: ObjectStore): Promise<void> {
  const key = '_sluice/probe.json';
  await store.create(key, { probe: 1 });
  if (await store.create(key, { probe: 2 })) {
    throw new StoreError(
      'UNSUPPORTED',
      `${store.url} ignores conditional writes (If-None-Match: *): journals and appends would not be safe there`,
    );
  }
}

/** The results store at `url`: `s3://bucket/prefix`, `file:///dir`, or a directory path (created if missing). */
export function openResultsStore(url: string, o: OpenStoreOptions = {}): ObjectStore {
  if (url.startsWith('s3://')) {
    const { bucket, prefix } = parseS3Url(url);
    // The settings are checked now; the AWS SDK loads at the store's first use (./lazy-store).
    const settings = s3SettingsFromEnv(o);
    const open = async (): Promise<ObjectStore> => {
      const [{ S3ObjectStore }, { s3Client }] = await Promise.all([import('./s3-object-store'), import('./s3-client')]);
      return new S3ObjectStore({
        bucket,
        prefix,
        client: s3Client(settings),
        ...(o.partBytes ? { partBytes: o.partBytes } : {}),
      });
    };
    return new LazyStore('s3', `s3://${bucket}/${prefix ? `${prefix}/` : ''}`, open);
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !url.startsWith('file://'))
    throw new StoreError(
      'INVALID_URL',
      `unsupported results store URL ${JSON.stringify(url)} (use s3://bucket/prefix or a directory)`,
    );
  if (url === '') throw new StoreError('INVALID_URL', 'the results store URL is empty');
  const dir = resolve(url.startsWith('file://') ? fileURLToPath(url) : url);
  // Made private when new (outputs, journals, the generated webhook secret); an existing folder keeps its mode.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return new FsObjectStore(dir);
}
