/** Writing an S3 object only if it is absent (`If-None-Match: *`), a retried write whose answer was lost known by its token. */
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { type UploadTarget } from './s3-upload';

/** What a conditional write needs of the store: the bucket and its counted `send`. */
export type S3Target = Pick<UploadTarget, 'bucket' | 'send'>;

/** Metadata key of a conditional write's token. */
const TOKEN = 'sluice-write';

/** The HTTP status of an error of the S3 client, when it has one. */
export const statusOf = (err: unknown): number | undefined =>
  (err as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;

/**
 * PUT with `If-None-Match: *`: false when the object exists (412); a 409 (a concurrent
 * conditional write) is retried. Each write carries a token in its metadata: a 412 on the SDK's
 * retry of a PUT whose first answer was lost is recognised as this write, not another's.
 */
export async function putIfAbsent(t: S3Target, name: string, text: string): Promise<boolean> {
  const body = Buffer.from(text);
  const token = randomUUID();
  for (let attempt = 0; ; attempt++) {
    try {
      await t.send(
        'PutObject',
        (c) =>
          c.send(
            new PutObjectCommand({
              Bucket: t.bucket,
              Key: name,
              Body: body,
              IfNoneMatch: '*',
              Metadata: { [TOKEN]: token },
            }),
          ),
        body.length,
      );
      return true;
    } catch (err) {
      if (statusOf(err) === 412) return (await tokenOf(t, name)) === token;
      if (statusOf(err) !== 409 || attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
    }
  }
}

/** The token of the write that made object `name`; undefined when it is absent. */
async function tokenOf(t: S3Target, name: string): Promise<string | undefined> {
  try {
    return (await t.send('HeadObject', (c) => c.send(new HeadObjectCommand({ Bucket: t.bucket, Key: name }))))
      .Metadata?.[TOKEN];
  } catch (err) {
    if (statusOf(err) === 404) return undefined;
    throw err;
  }
}
