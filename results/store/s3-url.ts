/**
 * What an `s3://` results store needs before the AWS SDK is loaded: the URL's bucket and prefix,
 * and the client's settings from the standard AWS variables (checked at once). Pure; the SDK's
 * client is made from them in ./s3-client, only when an S3 store is first used.
 */
import { StoreError } from '../errors';

/** Options of `openResultsStore` (./open) and {@link s3SettingsFromEnv}. */
export interface OpenStoreOptions {
  /** Where the AWS variables are read. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Path-style requests (`endpoint/bucket/key`), as MinIO, Ceph and most S3-compatible servers want. @default true when an endpoint is set (AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL), else false */
  forcePathStyle?: boolean;
  /** Multipart part size of streamed writes to S3. @default 8 MiB */
  partBytes?: number;
}

/** An S3 client's settings, as the SDK's `S3ClientConfig` takes them (plain values). */
export interface S3Settings {
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
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
 * The settings from the standard variables: `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL` (a custom
 * endpoint), `AWS_REGION` or `AWS_DEFAULT_REGION` (default us-east-1), and
 * `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN` (else the SDK's default
 * credential chain: profiles, SSO, instance roles). MISSING_CONFIG when only one of the key's halves is set.
 */
export function s3SettingsFromEnv(o: OpenStoreOptions = {}): S3Settings {
  const env = o.env ?? process.env;
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
  const id = env.AWS_ACCESS_KEY_ID;
  const secret = env.AWS_SECRET_ACCESS_KEY;
  if (Boolean(id) !== Boolean(secret))
    throw new StoreError(
      'MISSING_CONFIG',
      'set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or neither, for the default credential chain)',
    );
  return {
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
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
  };
}
