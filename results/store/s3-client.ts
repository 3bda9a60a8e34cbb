/** The AWS SDK's S3 client of a results store, from the settings ./s3-url reads (this module loads the SDK). */
import { S3Client } from '@aws-sdk/client-s3';
import { s3SettingsFromEnv, type OpenStoreOptions, type S3Settings } from './s3-url';

/** An S3 client with `settings`; the newer flexible checksums only where S3 requires them. */
export function s3Client(settings: S3Settings): S3Client {
  // S3-compatible servers differ in their support of the newer flexible checksums: send them only where S3 requires them.
  return new S3Client({
    ...settings,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** An S3 client configured from the standard AWS variables (see `s3SettingsFromEnv`). */
export const s3ClientFromEnv = (o: OpenStoreOptions = {}): S3Client => s3Client(s3SettingsFromEnv(o));
