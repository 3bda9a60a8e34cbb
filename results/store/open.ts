/**
 * Opening the results store named by a URL (`SLUICE_RESULTS_URL`): `s3://bucket/prefix` for an
 * S3-compatible bucket (endpoint, credentials and region from the standard AWS variables), or a
 * directory path (`file://` URLs too).
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { S3Client } from '@aws-sdk/client-s3';
import { FsObjectStore } from './fs-object-store';
import { StoreError } from '../errors';
import { type ObjectStore } from './object-store';
import { S3ObjectStore } from './s3-object-store';

/** Options of {@link openResultsStore}. */
export interface OpenStoreOptions {
  /** Where the AWS variables are read. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Path-style requests (`endpoint/bucket/key`), as MinIO, Ceph and most S3-compatible servers want. @default true when an endpoint is set (AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL), else false */
  forcePathStyle?: boolean;
  /** Multipart part size of streamed writes to S3. @default 8 MiB */
  partBytes?: number;
}

/**
 * An S3 client configured from the standard variables: `AWS_ENDPOINT_URL_S3` or
 * `AWS_ENDPOINT_URL` (a custom endpoint), `AWS_REGION` or `AWS_DEFAULT_REGION` (default
 * us-east-1), and `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN` (else the SDK's
 * default credential chain: profiles, SSO, instance roles).
 */
export function s3ClientFromEnv(o: OpenStoreOptions = {}): S3Client {
  const env = o.env ?? process.env;
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1';
  const id = env.AWS_ACCESS_KEY_ID;
  const secret = env.AWS_SECRET_ACCESS_KEY;
  if (Boolean(id) !== Boolean(secret))
    throw new StoreError(
      'MISSING_CONFIG',
      'set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or neither, for the default credential chain)',
    );
  return new S3Client({
    region,
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle: o.forcePathStyle ?? endpoint !== undefined,
    ...(id && secret
      ? {
          credentials: {
            accessKeyId: id,
            secretAccessKey: secret,
            ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
          },
        }
      : {}),
    // S3-compatible servers differ in their support of the newer flexible checksums: send them only where S3 requires them.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** Bucket and key prefix of an `s3://bucket/prefix` URL; INVALID_URL when it is not one. */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/?#]+)\/?([^?#]*)$/.exec(url);
  if (!m || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(m[1]!))
    throw new StoreError('INVALID_URL', `not an s3://bucket/prefix URL: ${JSON.stringify(url)}`);
  const prefix = m[2]!.replace(/\/+$/, '');
  if (prefix.split('/').some((p) => p === '.' || p === '..') || prefix.startsWith('/'))
    throw new StoreError('INVALID_URL', `invalid key prefix in ${JSON.stringify(url)}`);
  return { bucket: m[1]!, prefix };
}

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
    return new S3ObjectStore({
      bucket,
      prefix,
      client: s3ClientFromEnv(o),
      ...(o.partBytes ? { partBytes: o.partBytes } : {}),
    });
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
